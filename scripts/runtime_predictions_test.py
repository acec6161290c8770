#!/usr/bin/env python3
"""Checks scripts/runtime_predictions.py on a small trace whose predictions are worked out by hand."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime_predictions.py")


def swf_line(job, submit, wait, run, procs, limit, user):
    # The 18 SWF fields; the script reads 1-5, 8, 9 and 12.
    return f"{job} {submit} {wait} {run} {procs} -1 -1 {procs} {limit} -1 1 {user} 1 -1 -1 -1 -1 -1\n"


TRACE = "".join([
    "; a header line\n",
    swf_line(1, 0, 0, 100, 1, 1000, 1),     # ends at 100
    swf_line(2, 50, 0, 300, 1, 1000, 1),    # ends at 350; job 1 still running at its submission
    swf_line(3, 200, 0, 500, 2, 1000, 1),   # ends at 700; job 1 ended
    swf_line(4, 400, 0, 10, 1, 1000, 1),    # ends at 410; jobs 1 and 2 ended
    swf_line(5, 400, 0, 40, 1, 50, 2),      # another user
    swf_line(6, 2000, 0, 900, 1, 2000, 1),  # a new limit; jobs 4 then 3 ended last
    swf_line(7, 2100, 0, 0, 1, 2000, 1),    # never ran: skipped
])


class RuntimePredictionsTest(unittest.TestCase):
    def run_script(self, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".swf", delete=False) as f:
            f.write(TRACE)
        try:
            out = subprocess.run([sys.executable, SCRIPT, *args, f.name], check=True,
                                 capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        predictions = dict(tuple(map(int, line.split())) for line in out.stdout.splitlines())
        return predictions, out.stderr

    def test_online_uses_only_runs_ended_before_the_submission(self):
        predictions, _ = self.run_script("--online", "user")
        self.assertEqual(predictions, {3: 100, 4: 200, 6: 255})

    def test_online_by_user_and_limit_starts_again_for_a_new_limit(self):
        predictions, _ = self.run_script("--online", "user,limit")
        self.assertEqual(predictions, {3: 100, 4: 200})

    def test_hindsight_is_each_keys_median(self):
        predictions, _ = self.run_script("--hindsight", "user")
        self.assertEqual(predictions, {1: 300, 2: 300, 3: 300, 4: 300, 5: 40, 6: 300})
        predictions, _ = self.run_script("--hindsight", "user,procs")
        self.assertEqual(predictions[3], 500)
        self.assertEqual(predictions[1], 200)

    def test_mae_counts_a_job_without_prediction_with_its_limit(self):
        _, err = self.run_script("--online", "user", "--mae")
        # |1000-100| + |1000-300| + |100-500| + |200-10| + |50-40| + |255-900|, over 6
        self.assertIn(f"runtime_mae {round((900 + 700 + 400 + 190 + 10 + 645) / 6)} s", err)

    def test_an_unknown_key_field_is_refused(self):
        with self.assertRaises(subprocess.CalledProcessError) as raised:
            self.run_script("--online", "user,queue")
        self.assertIn("unknown key field 'queue'", raised.exception.stderr)


if __name__ == "__main__":
    unittest.main()
