"""The CPU plugin's own LPT, seen from outside: the model it hands to LPT and the model LPT gives
back, next to lpt's, for a model whose runtime output or names diverge.

    python repros/plugin_lpt.py MODEL.xml [--out DIR] [--isa-cap ISA] [--grep REGEX]

OpenVINO's serialize tracing (lpt_cli/runtime/plugin_trace.py) keeps two IRs of the CPU
plugin's compile of MODEL in DIR (default: a new temporary folder; ONEDNN_MAX_CPU_ISA with
--isa-cap):
  plugin_pre_lpt.xml  the model before the plugin's LPT (after its own optimizations and before
                      LPT's prerequisites), to hold against lpt's `--trace` step `02_pre_lpt`
  plugin_lpt.xml      the model after the plugin's `low_precision::LowPrecision` pass, to hold
                      against lpt's lowp output
It then runs `lpt transform --config cpu --dialect lowp --trace DIR/lpt` on MODEL and prints, for
both moments, the op types whose counts differ and the ops named in both whose output element
types differ (`--grep` keeps the lines matching REGEX). Reading the two pairs side by side found
getNotEmpty's count of the replaced Add (issue 23). Exit 1 when something differs.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lpt_cli.ir.reader import read_ir  # noqa: E402
from lpt_cli.runtime.plugin_trace import NoPluginLpt, differences, plugin_lpt_snapshots  # noqa: E402

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("xml", type=Path)
    parser.add_argument("--out", type=Path, help="keep the IRs here (default: a new temporary folder)")
    parser.add_argument("--isa-cap", help="ONEDNN_MAX_CPU_ISA for the plugin and lpt's `cpu` (AVX2, AVX2_VNNI, ...)")
    parser.add_argument("--grep", default="", help="print only the lines matching this regex")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="plugin-lpt-"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        pre, after = plugin_lpt_snapshots(args.xml, out, args.isa_cap)
    except NoPluginLpt as err:
        raise SystemExit(str(err)) from None
    env = {**os.environ, **({"ONEDNN_MAX_CPU_ISA": args.isa_cap} if args.isa_cap else {})}
    subprocess.run([sys.executable, "-m", "lpt_cli", "transform", str(args.xml), "--config", "cpu", "--dialect",
                    "lowp", "-q", "-o", str(out / "lpt_lowp.xml"), "--trace", str(out / "lpt")], env=env, check=True)
    pattern = re.compile(args.grep)
    found = False
    for label, ours, theirs in (("before LPT", out / "lpt" / "02_pre_lpt.xml", pre),
                                ("after LPT", out / "lpt_lowp.xml", after)):
        lines = [line for line in differences(read_ir(theirs), read_ir(ours)) if pattern.search(line)]
        print(f"{label}: {theirs.name} against {ours.relative_to(out)}: {len(lines)} differences")
        for line in lines:
            print("  " + line)
        found = found or bool(lines)
    print(f"IRs in {out}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
