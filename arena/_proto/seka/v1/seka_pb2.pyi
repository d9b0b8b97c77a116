from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_BET: _ClassVar[ActionKind]
    ACTION_KIND_FOLD: _ClassVar[ActionKind]
    ACTION_KIND_SHOW: _ClassVar[ActionKind]
    ACTION_KIND_DARK_BET: _ClassVar[ActionKind]
    ACTION_KIND_SUPPORT: _ClassVar[ActionKind]
    ACTION_KIND_RAISE: _ClassVar[ActionKind]
    ACTION_KIND_CALL: _ClassVar[ActionKind]
    ACTION_KIND_OPEN: _ClassVar[ActionKind]
    ACTION_KIND_MULTIWAY_OPEN: _ClassVar[ActionKind]

class Fault(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_UNSPECIFIED: _ClassVar[Fault]
    FAULT_TIMEOUT: _ClassVar[Fault]
    FAULT_ILLEGAL: _ClassVar[Fault]
    FAULT_MALFORMED: _ClassVar[Fault]
    FAULT_CRASH: _ClassVar[Fault]

class ShowdownKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHOWDOWN_KIND_UNSPECIFIED: _ClassVar[ShowdownKind]
    SHOWDOWN_KIND_HEADS_UP: _ClassVar[ShowdownKind]
    SHOWDOWN_KIND_ACTION_CAP: _ClassVar[ShowdownKind]
    SHOWDOWN_KIND_OPEN: _ClassVar[ShowdownKind]
    SHOWDOWN_KIND_CALL: _ClassVar[ShowdownKind]
    SHOWDOWN_KIND_SHORT: _ClassVar[ShowdownKind]
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_BET: ActionKind
ACTION_KIND_FOLD: ActionKind
ACTION_KIND_SHOW: ActionKind
ACTION_KIND_DARK_BET: ActionKind
ACTION_KIND_SUPPORT: ActionKind
ACTION_KIND_RAISE: ActionKind
ACTION_KIND_CALL: ActionKind
ACTION_KIND_OPEN: ActionKind
ACTION_KIND_MULTIWAY_OPEN: ActionKind
FAULT_UNSPECIFIED: Fault
FAULT_TIMEOUT: Fault
FAULT_ILLEGAL: Fault
FAULT_MALFORMED: Fault
FAULT_CRASH: Fault
SHOWDOWN_KIND_UNSPECIFIED: ShowdownKind
SHOWDOWN_KIND_HEADS_UP: ShowdownKind
SHOWDOWN_KIND_ACTION_CAP: ShowdownKind
SHOWDOWN_KIND_OPEN: ShowdownKind
SHOWDOWN_KIND_CALL: ShowdownKind
SHOWDOWN_KIND_SHORT: ShowdownKind

class Amount(_message.Message):
    __slots__ = ("numerator", "denominator")
    NUMERATOR_FIELD_NUMBER: _ClassVar[int]
    DENOMINATOR_FIELD_NUMBER: _ClassVar[int]
    numerator: int
    denominator: int
    def __init__(self, numerator: _Optional[int] = ..., denominator: _Optional[int] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("seat", "bot")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ...) -> None: ...

class TableSettings(_message.Message):
    __slots__ = ("ante", "opening_stake", "max_bet", "max_actions", "pots_per_session", "seats", "stack", "deck", "wild", "hand_size", "betting")
    ANTE_FIELD_NUMBER: _ClassVar[int]
    OPENING_STAKE_FIELD_NUMBER: _ClassVar[int]
    MAX_BET_FIELD_NUMBER: _ClassVar[int]
    MAX_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    POTS_PER_SESSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    WILD_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    BETTING_FIELD_NUMBER: _ClassVar[int]
    ante: Amount
    opening_stake: Amount
    max_bet: Amount
    max_actions: int
    pots_per_session: int
    seats: int
    stack: Amount
    deck: _containers.RepeatedScalarFieldContainer[str]
    wild: _containers.RepeatedScalarFieldContainer[str]
    hand_size: int
    betting: str
    def __init__(self, ante: _Optional[_Union[Amount, _Mapping]] = ..., opening_stake: _Optional[_Union[Amount, _Mapping]] = ..., max_bet: _Optional[_Union[Amount, _Mapping]] = ..., max_actions: _Optional[int] = ..., pots_per_session: _Optional[int] = ..., seats: _Optional[int] = ..., stack: _Optional[_Union[Amount, _Mapping]] = ..., deck: _Optional[_Iterable[str]] = ..., wild: _Optional[_Iterable[str]] = ..., hand_size: _Optional[int] = ..., betting: _Optional[str] = ...) -> None: ...

class TimeLimits(_message.Message):
    __slots__ = ("decision_ms", "time_bank_ms", "start_deadline_ms", "grace_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    START_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    time_bank_ms: int
    start_deadline_ms: int
    grace_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., start_deadline_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ...) -> None: ...

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "profile", "table", "limits", "session_id", "seat", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: str
    profile: str
    table: TableSettings
    limits: TimeLimits
    session_id: str
    seat: int
    options: _containers.ScalarMap[str, str]
    def __init__(self, protocol_version: _Optional[str] = ..., profile: _Optional[str] = ..., table: _Optional[_Union[TableSettings, _Mapping]] = ..., limits: _Optional[_Union[TimeLimits, _Mapping]] = ..., session_id: _Optional[str] = ..., seat: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class HelloReply(_message.Message):
    __slots__ = ("name", "version", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[str] = ...) -> None: ...

class PublicAction(_message.Message):
    __slots__ = ("seat", "kind", "amount", "fault", "stake")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: ActionKind
    amount: Amount
    fault: Fault
    stake: Amount
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[ActionKind, str]] = ..., amount: _Optional[_Union[Amount, _Mapping]] = ..., fault: _Optional[_Union[Fault, str]] = ..., stake: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class SvaraEntry(_message.Message):
    __slots__ = ("seat", "accepted", "fault")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    accepted: bool
    fault: Fault
    def __init__(self, seat: _Optional[int] = ..., accepted: _Optional[bool] = ..., fault: _Optional[_Union[Fault, str]] = ...) -> None: ...

class SvaraRound(_message.Message):
    __slots__ = ("frozen_pot", "price", "tied", "eligible", "entries")
    FROZEN_POT_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    TIED_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    frozen_pot: Amount
    price: Amount
    tied: _containers.RepeatedScalarFieldContainer[int]
    eligible: _containers.RepeatedScalarFieldContainer[int]
    entries: _containers.RepeatedCompositeFieldContainer[SvaraEntry]
    def __init__(self, frozen_pot: _Optional[_Union[Amount, _Mapping]] = ..., price: _Optional[_Union[Amount, _Mapping]] = ..., tied: _Optional[_Iterable[int]] = ..., eligible: _Optional[_Iterable[int]] = ..., entries: _Optional[_Iterable[_Union[SvaraEntry, _Mapping]]] = ...) -> None: ...

class AmountRange(_message.Message):
    __slots__ = ("min", "max")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    min: Amount
    max: Amount
    def __init__(self, min: _Optional[_Union[Amount, _Mapping]] = ..., max: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class MultiwayOpenBounds(_message.Message):
    __slots__ = ("amount", "against")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    AGAINST_FIELD_NUMBER: _ClassVar[int]
    amount: Amount
    against: int
    def __init__(self, amount: _Optional[_Union[Amount, _Mapping]] = ..., against: _Optional[int] = ...) -> None: ...

class LegalActions(_message.Message):
    __slots__ = ("min_bet", "max_bet", "can_show", "show_amount", "dark_bet", "can_look", "support", "raise_to", "stake_factor", "call", "open", "multiway_open", "short")
    MIN_BET_FIELD_NUMBER: _ClassVar[int]
    MAX_BET_FIELD_NUMBER: _ClassVar[int]
    CAN_SHOW_FIELD_NUMBER: _ClassVar[int]
    SHOW_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    DARK_BET_FIELD_NUMBER: _ClassVar[int]
    CAN_LOOK_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_FIELD_NUMBER: _ClassVar[int]
    RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    STAKE_FACTOR_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    MULTIWAY_OPEN_FIELD_NUMBER: _ClassVar[int]
    SHORT_FIELD_NUMBER: _ClassVar[int]
    min_bet: Amount
    max_bet: Amount
    can_show: bool
    show_amount: Amount
    dark_bet: AmountRange
    can_look: bool
    support: Amount
    raise_to: AmountRange
    stake_factor: int
    call: Amount
    open: Amount
    multiway_open: MultiwayOpenBounds
    short: bool
    def __init__(self, min_bet: _Optional[_Union[Amount, _Mapping]] = ..., max_bet: _Optional[_Union[Amount, _Mapping]] = ..., can_show: _Optional[bool] = ..., show_amount: _Optional[_Union[Amount, _Mapping]] = ..., dark_bet: _Optional[_Union[AmountRange, _Mapping]] = ..., can_look: _Optional[bool] = ..., support: _Optional[_Union[Amount, _Mapping]] = ..., raise_to: _Optional[_Union[AmountRange, _Mapping]] = ..., stake_factor: _Optional[int] = ..., call: _Optional[_Union[Amount, _Mapping]] = ..., open: _Optional[_Union[Amount, _Mapping]] = ..., multiway_open: _Optional[_Union[MultiwayOpenBounds, _Mapping]] = ..., short: _Optional[bool] = ...) -> None: ...

class TurnRequest(_message.Message):
    __slots__ = ("session_id", "pot_number", "replay", "dealer", "seat", "cards", "seats", "in_deal", "pot", "previous_bet", "balances", "actions", "svaras", "actions_count", "max_actions", "legal", "notices", "cards_unseen", "stacks", "stake", "unseen")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    IN_DEAL_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_BET_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SVARAS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_COUNT_FIELD_NUMBER: _ClassVar[int]
    MAX_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    CARDS_UNSEEN_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    STAKE_FIELD_NUMBER: _ClassVar[int]
    UNSEEN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    pot_number: int
    replay: int
    dealer: int
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    in_deal: _containers.RepeatedScalarFieldContainer[int]
    pot: Amount
    previous_bet: Amount
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    actions: _containers.RepeatedCompositeFieldContainer[PublicAction]
    svaras: _containers.RepeatedCompositeFieldContainer[SvaraRound]
    actions_count: int
    max_actions: int
    legal: LegalActions
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    cards_unseen: bool
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    stake: Amount
    unseen: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, session_id: _Optional[str] = ..., pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., dealer: _Optional[int] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., in_deal: _Optional[_Iterable[int]] = ..., pot: _Optional[_Union[Amount, _Mapping]] = ..., previous_bet: _Optional[_Union[Amount, _Mapping]] = ..., balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[PublicAction, _Mapping]]] = ..., svaras: _Optional[_Iterable[_Union[SvaraRound, _Mapping]]] = ..., actions_count: _Optional[int] = ..., max_actions: _Optional[int] = ..., legal: _Optional[_Union[LegalActions, _Mapping]] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ..., cards_unseen: _Optional[bool] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., stake: _Optional[_Union[Amount, _Mapping]] = ..., unseen: _Optional[_Iterable[int]] = ...) -> None: ...

class FoldAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BetAction(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: Amount
    def __init__(self, amount: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class ShowAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DarkBetAction(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: Amount
    def __init__(self, amount: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class LookAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SupportAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RaiseToAction(_message.Message):
    __slots__ = ("stake",)
    STAKE_FIELD_NUMBER: _ClassVar[int]
    stake: Amount
    def __init__(self, stake: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class CallAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OpenAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MultiwayOpenAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WeightedAction(_message.Message):
    __slots__ = ("fold", "bet", "show", "dark_bet", "support", "raise_to", "call", "open", "multiway_open", "probability")
    FOLD_FIELD_NUMBER: _ClassVar[int]
    BET_FIELD_NUMBER: _ClassVar[int]
    SHOW_FIELD_NUMBER: _ClassVar[int]
    DARK_BET_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_FIELD_NUMBER: _ClassVar[int]
    RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    MULTIWAY_OPEN_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    fold: FoldAction
    bet: BetAction
    show: ShowAction
    dark_bet: DarkBetAction
    support: SupportAction
    raise_to: RaiseToAction
    call: CallAction
    open: OpenAction
    multiway_open: MultiwayOpenAction
    probability: float
    def __init__(self, fold: _Optional[_Union[FoldAction, _Mapping]] = ..., bet: _Optional[_Union[BetAction, _Mapping]] = ..., show: _Optional[_Union[ShowAction, _Mapping]] = ..., dark_bet: _Optional[_Union[DarkBetAction, _Mapping]] = ..., support: _Optional[_Union[SupportAction, _Mapping]] = ..., raise_to: _Optional[_Union[RaiseToAction, _Mapping]] = ..., call: _Optional[_Union[CallAction, _Mapping]] = ..., open: _Optional[_Union[OpenAction, _Mapping]] = ..., multiway_open: _Optional[_Union[MultiwayOpenAction, _Mapping]] = ..., probability: _Optional[float] = ...) -> None: ...

class MixedAction(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[WeightedAction]
    def __init__(self, entries: _Optional[_Iterable[_Union[WeightedAction, _Mapping]]] = ...) -> None: ...

class TurnReply(_message.Message):
    __slots__ = ("fold", "bet", "show", "mix", "dark_bet", "look", "support", "raise_to", "call", "open", "multiway_open")
    FOLD_FIELD_NUMBER: _ClassVar[int]
    BET_FIELD_NUMBER: _ClassVar[int]
    SHOW_FIELD_NUMBER: _ClassVar[int]
    MIX_FIELD_NUMBER: _ClassVar[int]
    DARK_BET_FIELD_NUMBER: _ClassVar[int]
    LOOK_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_FIELD_NUMBER: _ClassVar[int]
    RAISE_TO_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    MULTIWAY_OPEN_FIELD_NUMBER: _ClassVar[int]
    fold: FoldAction
    bet: BetAction
    show: ShowAction
    mix: MixedAction
    dark_bet: DarkBetAction
    look: LookAction
    support: SupportAction
    raise_to: RaiseToAction
    call: CallAction
    open: OpenAction
    multiway_open: MultiwayOpenAction
    def __init__(self, fold: _Optional[_Union[FoldAction, _Mapping]] = ..., bet: _Optional[_Union[BetAction, _Mapping]] = ..., show: _Optional[_Union[ShowAction, _Mapping]] = ..., mix: _Optional[_Union[MixedAction, _Mapping]] = ..., dark_bet: _Optional[_Union[DarkBetAction, _Mapping]] = ..., look: _Optional[_Union[LookAction, _Mapping]] = ..., support: _Optional[_Union[SupportAction, _Mapping]] = ..., raise_to: _Optional[_Union[RaiseToAction, _Mapping]] = ..., call: _Optional[_Union[CallAction, _Mapping]] = ..., open: _Optional[_Union[OpenAction, _Mapping]] = ..., multiway_open: _Optional[_Union[MultiwayOpenAction, _Mapping]] = ...) -> None: ...

class SvaraOffer(_message.Message):
    __slots__ = ("session_id", "pot_number", "replay", "seat", "frozen_pot", "price", "tied", "eligible", "answers", "balances", "dealer", "notices", "stacks")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FROZEN_POT_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    TIED_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    pot_number: int
    replay: int
    seat: int
    frozen_pot: Amount
    price: Amount
    tied: _containers.RepeatedScalarFieldContainer[int]
    eligible: _containers.RepeatedScalarFieldContainer[int]
    answers: _containers.RepeatedCompositeFieldContainer[SvaraEntry]
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    dealer: int
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    def __init__(self, session_id: _Optional[str] = ..., pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., seat: _Optional[int] = ..., frozen_pot: _Optional[_Union[Amount, _Mapping]] = ..., price: _Optional[_Union[Amount, _Mapping]] = ..., tied: _Optional[_Iterable[int]] = ..., eligible: _Optional[_Iterable[int]] = ..., answers: _Optional[_Iterable[_Union[SvaraEntry, _Mapping]]] = ..., balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., dealer: _Optional[int] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ...) -> None: ...

class SvaraReply(_message.Message):
    __slots__ = ("accept",)
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    accept: bool
    def __init__(self, accept: _Optional[bool] = ...) -> None: ...

class DealNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "dealer", "seat", "cards", "seats", "players", "balances", "pot", "cards_unseen", "stacks")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    POT_FIELD_NUMBER: _ClassVar[int]
    CARDS_UNSEEN_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    dealer: int
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    players: _containers.RepeatedScalarFieldContainer[int]
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    pot: Amount
    cards_unseen: bool
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., dealer: _Optional[int] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., players: _Optional[_Iterable[int]] = ..., balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., pot: _Optional[_Union[Amount, _Mapping]] = ..., cards_unseen: _Optional[bool] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ...) -> None: ...

class ShownHand(_message.Message):
    __slots__ = ("seat", "cards", "value")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    value: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., value: _Optional[str] = ...) -> None: ...

class ShowdownNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "kind", "hands", "winner")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    kind: ShowdownKind
    hands: _containers.RepeatedCompositeFieldContainer[ShownHand]
    winner: int
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., kind: _Optional[_Union[ShowdownKind, str]] = ..., hands: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class LookNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "seat", "cards")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class ComparisonNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "opener", "against", "loser", "hands")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    OPENER_FIELD_NUMBER: _ClassVar[int]
    AGAINST_FIELD_NUMBER: _ClassVar[int]
    LOSER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    opener: int
    against: int
    loser: int
    hands: _containers.RepeatedCompositeFieldContainer[ShownHand]
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., opener: _Optional[int] = ..., against: _Optional[int] = ..., loser: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[ShownHand, _Mapping]]] = ...) -> None: ...

class ShortOfChipsNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "seat", "paid")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    seat: int
    paid: Amount
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., seat: _Optional[int] = ..., paid: _Optional[_Union[Amount, _Mapping]] = ...) -> None: ...

class ReturnedChipsNotice(_message.Message):
    __slots__ = ("pot_number", "replay", "seat", "amount", "stacks")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    replay: int
    seat: int
    amount: Amount
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    def __init__(self, pot_number: _Optional[int] = ..., replay: _Optional[int] = ..., seat: _Optional[int] = ..., amount: _Optional[_Union[Amount, _Mapping]] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ...) -> None: ...

class SplitNotice(_message.Message):
    __slots__ = ("pot_number", "seats", "amount", "share", "balances", "stacks")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    amount: Amount
    share: Amount
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    def __init__(self, pot_number: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., amount: _Optional[_Union[Amount, _Mapping]] = ..., share: _Optional[_Union[Amount, _Mapping]] = ..., balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ...) -> None: ...

class PotResultNotice(_message.Message):
    __slots__ = ("pot_number", "winner", "amount", "shown", "balances", "stacks")
    POT_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    pot_number: int
    winner: int
    amount: Amount
    shown: bool
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    def __init__(self, pot_number: _Optional[int] = ..., winner: _Optional[int] = ..., amount: _Optional[_Union[Amount, _Mapping]] = ..., shown: _Optional[bool] = ..., balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ...) -> None: ...

class SessionEndNotice(_message.Message):
    __slots__ = ("balances", "winners", "notices", "stacks", "pots_played")
    BALANCES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    STACKS_FIELD_NUMBER: _ClassVar[int]
    POTS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    balances: _containers.RepeatedCompositeFieldContainer[Amount]
    winners: _containers.RepeatedScalarFieldContainer[int]
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    stacks: _containers.RepeatedCompositeFieldContainer[Amount]
    pots_played: int
    def __init__(self, balances: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., winners: _Optional[_Iterable[int]] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ..., stacks: _Optional[_Iterable[_Union[Amount, _Mapping]]] = ..., pots_played: _Optional[int] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("session_id", "deal", "showdown", "pot_result", "session_end", "look", "comparison", "short_of_chips", "returned_chips", "split")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    POT_RESULT_FIELD_NUMBER: _ClassVar[int]
    SESSION_END_FIELD_NUMBER: _ClassVar[int]
    LOOK_FIELD_NUMBER: _ClassVar[int]
    COMPARISON_FIELD_NUMBER: _ClassVar[int]
    SHORT_OF_CHIPS_FIELD_NUMBER: _ClassVar[int]
    RETURNED_CHIPS_FIELD_NUMBER: _ClassVar[int]
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    deal: DealNotice
    showdown: ShowdownNotice
    pot_result: PotResultNotice
    session_end: SessionEndNotice
    look: LookNotice
    comparison: ComparisonNotice
    short_of_chips: ShortOfChipsNotice
    returned_chips: ReturnedChipsNotice
    split: SplitNotice
    def __init__(self, session_id: _Optional[str] = ..., deal: _Optional[_Union[DealNotice, _Mapping]] = ..., showdown: _Optional[_Union[ShowdownNotice, _Mapping]] = ..., pot_result: _Optional[_Union[PotResultNotice, _Mapping]] = ..., session_end: _Optional[_Union[SessionEndNotice, _Mapping]] = ..., look: _Optional[_Union[LookNotice, _Mapping]] = ..., comparison: _Optional[_Union[ComparisonNotice, _Mapping]] = ..., short_of_chips: _Optional[_Union[ShortOfChipsNotice, _Mapping]] = ..., returned_chips: _Optional[_Union[ReturnedChipsNotice, _Mapping]] = ..., split: _Optional[_Union[SplitNotice, _Mapping]] = ...) -> None: ...

class NoticeReply(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
