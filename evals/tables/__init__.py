"""Result tables as pure functions of run-store sample frames, and the paper's published numbers.

May import: evals/stats/, stores/.
"""
