//! Server-Sent Events (placeholder).
