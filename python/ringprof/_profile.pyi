from types import CodeType, TracebackType
from os import PathLike
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple, Type, Union

class _ProfilerSubEntryFields(NamedTuple):
    code: Union[CodeType, str]
    callcount: int
    reccallcount: int
    totaltime: float
    inlinetime: float

class ProfilerSubEntry(_ProfilerSubEntryFields):
    signature: str
    def __new__(cls, code: Union[CodeType, str], callcount: int, reccallcount: int, totaltime: float,
                inlinetime: float, signature: str = ...) -> "ProfilerSubEntry": ...

class _ProfilerEntryFields(NamedTuple):
    code: Union[CodeType, str]
    callcount: int
    reccallcount: int
    totaltime: float
    inlinetime: float
    calls: Optional[List[ProfilerSubEntry]]

class ProfilerEntry(_ProfilerEntryFields):
    signature: str
    def __new__(cls, code: Union[CodeType, str], callcount: int, reccallcount: int, totaltime: float,
                inlinetime: float, calls: Optional[List[ProfilerSubEntry]], signature: str = ...) -> "ProfilerEntry": ...

_Label = Tuple[str, int, str]
_CallerStats = Tuple[int, int, float, float]
_Stats = Dict[_Label, Tuple[int, int, float, float, Dict[_Label, _CallerStats]]]

class Profile:
    stats: _Stats
    def __init__(self, custom_timer: Optional[Callable[[], Union[int, float]]] = ...,
                 time_unit: Optional[float] = ..., subcalls: bool = ..., builtins: bool = ...,
                 signatures: bool = ...) -> None: ...
    def enable(self, subcalls: Optional[bool] = ..., builtins: Optional[bool] = ...) -> None: ...
    def disable(self) -> None: ...
    def clear(self) -> None: ...
    def __enter__(self) -> "Profile": ...
    def __exit__(self, *exc: object) -> bool: ...
    def getstats(self) -> List[ProfilerEntry]: ...
    def create_stats(self) -> None: ...
    def snapshot_stats(self) -> None: ...
    def dump_stats(self, file: Union[str, "PathLike[str]"]) -> None: ...
    def stats_table(self, sort: Union[int, str] = ...) -> str: ...
    def print_stats(self, sort: Union[int, str] = ...) -> None: ...

def plot(profile: Profile, path: Optional[str] = ...) -> str: ...
