#!/usr/bin/env python3
"""A slurmrestd client as its v0.0.38 documentation tells one to write it.

Nothing in here knows about Rota: it reads SLURM_JWT (as `export $(scontrol token)`
leaves it), the user name and the server's address, and uses only the documented
paths and fields. rest_api_test runs it against rotarestd; it prints one JSON line
with what it saw and exits non-zero when the server broke the documented contract.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

BASE = os.environ["SLURMRESTD_URL"].rstrip("/")
HEADERS = {
    "X-SLURM-USER-NAME": os.environ["SLURM_USER"],
    "X-SLURM-USER-TOKEN": os.environ["SLURM_JWT"],
    "Content-Type": "application/json",
}


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=HEADERS)
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            answer = json.load(res)
    except urllib.error.HTTPError as e:
        answer = json.load(e)
    if answer.get("errors"):
        raise RuntimeError(f"{method} {path}: {answer['errors']}")
    if answer["meta"]["plugin"]["type"] not in ("openapi/v0.0.38", "openapi/dbv0.0.38"):
        raise RuntimeError(f"unexpected plugin {answer['meta']['plugin']}")
    return answer


def main():
    seen = {}
    ping = call("GET", "/slurm/v0.0.38/ping")
    seen["ping"] = ping["pings"][0]["ping"]

    submission = {
        "script": "#!/bin/bash\necho hello from $GREETING\n",
        "job": {
            "name": "docs-client",
            "current_working_directory": os.environ["WORK_DIR"],
            "standard_output": os.environ["WORK_DIR"] + "/docs-client.out",
            "environment": {"PATH": "/bin:/usr/bin", "GREETING": "the docs"},
            "tasks": 1,
            "time_limit": 2,
        },
    }
    job_id = call("POST", "/slurm/v0.0.38/job/submit", submission)["job_id"]
    seen["job_id"] = job_id
    for _ in range(300):
        job = call("GET", f"/slurm/v0.0.38/job/{job_id}")["jobs"][0]
        if job["job_state"] in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"):
            break
        time.sleep(0.1)
    seen["state"] = job["job_state"]
    seen["nodes"] = sorted(n["name"] for n in call("GET", "/slurm/v0.0.38/nodes")["nodes"])
    seen["partitions"] = [p["name"] for p in call("GET", "/slurm/v0.0.38/partitions")["partitions"]]
    for _ in range(100):
        jobs = call("GET", f"/slurmdb/v0.0.38/job/{job_id}")["jobs"]
        if jobs and jobs[0]["state"]["current"] == "COMPLETED":
            break
        time.sleep(0.1)
    seen["accounting_state"] = jobs[0]["state"]["current"] if jobs else None
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the test prints what went wrong
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
