"""Compile every zoo model under a few option sets, or compare two such runs byte for byte.

    python scripts/zoo_bundles.py write OUTDIR     # OUTDIR/<model>--<options>.tar
    python scripts/zoo_bundles.py compare OLD NEW  # lists every bundle file that differs

A refactoring that should not change behaviour is checked with it: `write` at the old
commit (e.g. from a `git worktree`, with that tree first on `sys.path`), `write` at the
new one, `compare`. The archives are reproducible, so equal inputs give equal bytes.
"""

import argparse
import hashlib
import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

OPTION_SETS = {
    "default": [],
    "no-offload": ["--no-offload"],
    "tiles4": ["--num-tiles", "4"],
    "hw-pinned": ["--mattr", "hw -quantize=fp16 -wb_pin_ocm=1"],
}


def input_shape_options(shapes: dict[str, list[int]]) -> list[str]:
    return [arg for name, dims in shapes.items() for arg in ("--input-shape", f"{name}={'x'.join(map(str, dims))}")]


def write(out: Path) -> None:
    import zoo
    from mrvl.compile import main as compile_main

    out.mkdir(parents=True, exist_ok=True)
    models = out / "models"
    models.mkdir(exist_ok=True)
    for name, build in sorted(zoo.ZOO.items()):
        model = models / f"{name}.onnx"
        model.write_bytes(build().SerializeToString())
        for label, options in OPTION_SETS.items():
            bundle = out / f"{name}--{label}.tar"
            if compile_main([str(model), "-o", str(bundle), *input_shape_options(zoo.INPUT_SHAPES.get(name, {})), *options]) != 0:
                raise SystemExit(f"mrvl-compile failed on {model} {options}")


def members(bundle: Path) -> dict[str, bytes]:
    with tarfile.open(bundle) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def compare(old: Path, new: Path) -> int:
    differing = 0
    for old_bundle in sorted(old.glob("*.tar")):
        new_bundle = new / old_bundle.name
        if not new_bundle.exists():
            print(f"{old_bundle.name}: missing in {new}")
            differing += 1
            continue
        a, b = members(old_bundle), members(new_bundle)
        for name in sorted(a.keys() | b.keys()):
            if a.get(name) != b.get(name):
                print(f"{old_bundle.name}: {name} differs")
                differing += 1
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(new.glob("*.tar")))).hexdigest()
    print(f"{len(list(old.glob('*.tar')))} bundles compared, {differing} differences (new set sha256 {digest[:16]})")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("write").add_argument("out", type=Path)
    cmp = sub.add_parser("compare")
    cmp.add_argument("old", type=Path)
    cmp.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        write(args.out)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
