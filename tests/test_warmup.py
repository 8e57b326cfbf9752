"""`gomoku warmup` must reach every jitted entry point the brain calls in a game, or the first
game to need one compiles it in the middle of a timed move."""
import subprocess
import sys

CHECK = """
from gomoku.engine import warmup
from gomoku.engine.search import dfpn, pvs, threats
warmup.warm_up()
missing = [f.__name__ for f in (pvs.root_search, pvs.root_moves,
                                pvs.refutes_vcf, threats.vcf, threats.vct,
                                dfpn.dfpn, dfpn.proof_line)
           if not f.signatures]
print("missing:", ",".join(missing))
"""


def test_warm_up_reaches_the_search_and_solvers():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "missing: \n" in out.stdout or out.stdout.strip() == "missing:"
