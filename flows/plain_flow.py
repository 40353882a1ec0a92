"""`flow`: Prefect's flow decorator, for flows whose parameters are JSON already.

Prefect stores a flow run's parameters as JSON made by FastAPI's `jsonable_encoder`, and its
first call imports FastAPI and its OpenAPI models into the command's process: about a tenth
of a CPU second for every command that runs a flow, to encode strings, lists of strings,
booleans and None, which are JSON as they are. A copy of such parameters is stored as it is
(the same JSON the encoder makes of them); anything else takes Prefect's way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prefect.flows import Flow

#: the types whose values JSON holds as they are (exactly these: a subclass, such as an
#: enum, may encode otherwise)
SCALARS = (str, int, float, bool, type(None))


class _NotJson(Exception):
    pass


def as_json(value: Any) -> Any:
    """A copy of `value` built of JSON's own types, or `_NotJson`."""
    kind = type(value)
    if kind in SCALARS:
        return value
    if kind is list:
        return [as_json(v) for v in value]
    if kind is dict and all(type(k) is str for k in value):
        return {k: as_json(v) for k, v in value.items()}
    raise _NotJson


class PlainFlow(Flow[Any, Any]):
    """A Prefect flow whose JSON parameters reach the API without FastAPI's encoder."""

    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        if not (self.ismethod or self.isclassmethod):
            try:
                return {key: as_json(value) for key, value in parameters.items()}
            except _NotJson:
                pass
        return super().serialize_parameters(parameters)


def flow(**options: Any) -> Callable[[Callable[..., Any]], PlainFlow]:
    """`prefect.flow(**options)`, making a `PlainFlow`."""
    return lambda fn: PlainFlow(fn=fn, **options)
