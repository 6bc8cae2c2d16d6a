"""The one exception users see: a problem with their input, reported in one line."""


class CompileError(Exception):
    """A problem with the user's input, located at a node, op, tensor or option.

    Tools print it as `error: <file>: <where>: <message>` and exit with status 1.
    """

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message

    def format(self, file: str) -> str:
        return f"error: {file}: {self}"
