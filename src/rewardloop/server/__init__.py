"""HTTP servers (optional extra ``rewardloop[server]``: FastAPI + uvicorn). Import the submodules
directly; importing :mod:`rewardloop` never imports them."""
