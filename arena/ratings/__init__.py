"""Ratings as pure functions of session outcomes: Bradley–Terry Elo, bootstrap intervals, chip rate, SPRT,
and the variance-reduced (adjusted) result.

Nothing here does I/O or reads a clock; randomness comes only from an explicit seed. See
docs/ratings.md for the model and the formulas.
"""

from __future__ import annotations

from .. import _util
from ._adjusted import VALUE_FUNCTION as VALUE_FUNCTION
from ._adjusted import SessionTerms as SessionTerms
from ._adjusted import adjust as adjust
from ._adjusted import block_half as block_half
from ._adjusted import control_coefficient as control_coefficient
from ._adjusted import controlled as controlled
from ._adjusted import session_terms as session_terms
from ._adjusted import value_function_digest as value_function_digest
from ._blocks import BlockResults as BlockResults
from ._blocks import BlockTally as BlockTally
from ._blocks import block_results as block_results
from ._blocks import tally_blocks as tally_blocks
from ._bootstrap import Bootstrap as Bootstrap
from ._bootstrap import bootstrap as bootstrap
from ._bootstrap import bootstrap_blocks as bootstrap_blocks
from ._bradley_terry import ELO_PER_NAT as ELO_PER_NAT
from ._bradley_terry import PairResults as PairResults
from ._bradley_terry import bradley_terry as bradley_terry
from ._bradley_terry import bradley_terry_pairs as bradley_terry_pairs
from ._bradley_terry import pair_results as pair_results
from ._chips import ChipStats as ChipStats
from ._chips import chip_rate as chip_rate
from ._groups import comparison_groups as comparison_groups
from ._groups import connected_groups as connected_groups
from ._newton import ONE_THREAD_ENV as ONE_THREAD_ENV
from ._outcome import RatingError as RatingError
from ._outcome import SessionOutcome as SessionOutcome
from ._prefixes import prefix_ratings as prefix_ratings
from ._sequential import sequential_elo as sequential_elo
from ._sprt import Sprt as Sprt
from ._sprt import pair_score as pair_score
from ._standings import Standing as Standing
from ._standings import standings as standings

__all__ = [
    "ELO_PER_NAT",
    "VALUE_FUNCTION",
    "ONE_THREAD_ENV",
    "BlockResults",
    "BlockTally",
    "Bootstrap",
    "ChipStats",
    "PairResults",
    "RatingError",
    "SessionOutcome",
    "SessionTerms",
    "Sprt",
    "Standing",
    "adjust",
    "block_half",
    "block_results",
    "bootstrap",
    "bootstrap_blocks",
    "bradley_terry",
    "bradley_terry_pairs",
    "chip_rate",
    "comparison_groups",
    "connected_groups",
    "control_coefficient",
    "controlled",
    "pair_results",
    "pair_score",
    "prefix_ratings",
    "sequential_elo",
    "session_terms",
    "standings",
    "value_function_digest",
    "tally_blocks",
]

_util.fixup_module_metadata(__name__, globals())
