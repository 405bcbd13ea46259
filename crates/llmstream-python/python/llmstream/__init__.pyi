from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, Literal, Optional, Union, final

__all__ = [
    "__version__",
    "ActionStream",
    "ArgumentStreams",
    "ChunkError",
    "Event",
    "Json",
    "JsonError",
    "JsonParser",
    "Piece",
    "Pipeline",
    "SnapshotChunker",
    "SseDecoder",
    "SseError",
    "ToolError",
    "aevents",
    "events",
    "from_json",
    "parse",
    "repair",
]

Piece = Union[bytes, bytearray, str]
Json = Any
Event = Dict[str, Any]

__version__: str

class JsonError(ValueError):
    kind: str
    offset: Optional[int]
    path: Optional[str]
    details: Optional[dict[str, Any]]

class SseError(ValueError):
    kind: str
    offset: int
    path: None
    details: dict[str, Any]

class ToolError(ValueError):
    kind: str
    offset: Optional[int]
    path: Optional[str]
    details: Optional[dict[str, Any]]

class ChunkError(ValueError):
    kind: str
    offset: None
    path: str
    snapshot: int
    details: dict[str, Any]

def parse(data: Piece, partial: bool = False, lenient: bool = False) -> Json: ...
def repair(text: Piece) -> Json: ...
def from_json(
    data: Piece,
    *,
    allow_inf_nan: bool = True,
    cache_mode: Any = None,
    partial_mode: Union[bool, Literal["off", "on", "trailing-strings"], None] = None,
    catch_duplicate_keys: bool = False,
    float_mode: Literal["float"] = "float",
) -> Json: ...

@final
class JsonParser:
    def __new__(cls, lenient: bool = False, events: bool = True) -> JsonParser: ...
    def feed(self, piece: Piece) -> list[Event]: ...
    def finish(self) -> list[Event]: ...
    @property
    def snapshot(self) -> Json: ...
    def snapshot_copy(self) -> Json: ...
    @property
    def bytes_fed(self) -> int: ...

@final
class SseDecoder:
    def __new__(cls) -> SseDecoder: ...
    def feed(self, piece: Piece) -> list[Event]: ...
    def finish(self) -> list[Event]: ...

@final
class Pipeline:
    def __new__(
        cls, provider: str = "auto", lenient_arguments: bool = False, strict_sse_end: bool = False
    ) -> Pipeline: ...
    def feed(self, piece: Piece) -> list[Event]: ...
    def finish(self) -> list[Event]: ...
    @property
    def message(self) -> Optional[dict[str, Any]]: ...

@final
class ArgumentStreams:
    def __new__(cls) -> ArgumentStreams: ...
    def feed(self, tool_id: str, fragment: Piece) -> list[Event]: ...
    def feed_accumulated(self, tool_id: str, text: Piece) -> list[Event]: ...
    def finish(self, tool_id: str) -> list[Event]: ...

@final
class ActionStream:
    def __new__(cls) -> ActionStream: ...
    def feed(self, text: Piece) -> list[Event]: ...
    def finish(self) -> list[Event]: ...

@final
class SnapshotChunker:
    def __new__(cls) -> SnapshotChunker: ...
    def feed(self, snapshot: Union[Piece, Json]) -> list[str]: ...
    def finish(self) -> list[str]: ...

def events(chunks: Iterable[Piece], provider: str = "auto") -> Iterator[Event]: ...
def aevents(chunks: AsyncIterable[Piece], provider: str = "auto") -> AsyncIterator[Event]: ...
