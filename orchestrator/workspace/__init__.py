"""Parallel writers on one repository: worktrees per task, the run's integration branch, the merge queue.

``git.py`` runs git; ``worktrees.py`` lays out a run's branches and worktrees (never in the user's
checkout); ``merging.py`` lands finished task branches on the integration branch one at a time.
"""
