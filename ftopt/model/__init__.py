"""The model layer: pydantic types and the sizing arithmetic. Knows nothing of CP-SAT or click."""
