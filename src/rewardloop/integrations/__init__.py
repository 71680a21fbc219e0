"""Adapters for trainers (verl, TRL, OpenRLHF). Each module is imported on demand."""
