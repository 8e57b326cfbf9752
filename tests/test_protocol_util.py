"""Re-export of the brain harness, which lives in tests/conftest.py, for the two test modules
(test_freeze.py, test_learned_eval.py) that still import it from here; to be removed once they
import from conftest."""
from conftest import MOVE_RE, Brain

__all__ = ["MOVE_RE", "Brain"]
