"""The one exception users see: a problem with their input, reported in one line."""


class _Located:
    """A message located at a node, op, tensor or option, printed as one line."""

    kind = ""

    def __init__(self, where: str, message: str):
        where, message = one_line(where), one_line(message)
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message

    def format(self, file: str) -> str:
        return f"{self.kind}: {one_line(file)}: {self}"


class CompileError(_Located, Exception):
    """A problem with the user's input, located at a node, op, tensor or option.

    Tools print it as `error: <file>: <where>: <message>` and exit with status 1.
    """

    kind = "error"


class CompileWarning(_Located, UserWarning):
    """Something in the user's input that the compiler worked around, located like a CompileError.

    Tools print it as `warning: <file>: <where>: <message>` on stderr and carry on; through
    the Python API it is an ordinary `warnings` warning.
    """

    kind = "warning"


def one_line(text: str) -> str:
    """`text` with control characters escaped, so that a message stays on one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
