"""Generated JSON documents (hypothesis strategies)."""

from __future__ import annotations

from hypothesis import strategies as st

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)

values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)

# Documents whose top is a container (the shape streamed arguments have).
containers = st.lists(values, max_size=5) | st.dictionaries(
    st.text(max_size=8), values, max_size=5
)
