"""The yardstick of `throughput.py`: a bare FastAPI app with one route, served by the same Uvicorn
in the same venv as `paperkg serve`, so the ratio of the two measures paperkg's own layers
(middleware, store, queries, encoding) and not the framework or the machine.

    python -m uvicorn benchmarks.bare_app:app --port 8001 --no-access-log
"""

from __future__ import annotations

from fastapi import FastAPI

app = FastAPI()


@app.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}
