from typing import Any, Callable, Dict, Optional, TypeVar, overload

from ._profile import Profile as Profile, plot as plot
from ._ringprof import (
    AdoptContext as AdoptContext,
    Context as Context,
    add_metadata as add_metadata,
    capture_context as capture_context,
    disable as disable,
    dropped_scopes as dropped_scopes,
    enable as enable,
    flush as flush,
    gauge as gauge,
    is_enabled as is_enabled,
    scope as scope,
    set_thread_name as set_thread_name,
    step as step,
)

__version__: str
__all__ = ["scope", "function", "step", "gauge", "flush", "enable", "disable", "is_enabled",
           "add_metadata", "set_thread_name", "capture_context", "Context", "AdoptContext", "dropped_scopes", "timer_tree", "Profile", "plot",
           "get_include", "get_cmake_dir", "get_library", "__version__"]

_F = TypeVar("_F", bound=Callable[..., Any])

@overload
def function(fn: _F, *, name: Optional[str] = ...) -> _F: ...
@overload
def function(fn: None = ..., *, name: Optional[str] = ...) -> Callable[[_F], _F]: ...
def timer_tree() -> Optional[Dict[str, Any]]: ...
def get_include() -> str: ...
def get_cmake_dir() -> str: ...
def get_library() -> str: ...
