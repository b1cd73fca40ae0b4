"""Model access: one model call (client.py), its transport, retry policy, breaker and endpoints, the
providers, the embedded llama.cpp runtime (embedded/), batch mode (batch/) and cost (cost/).

May import: stores/, prompts/ and its own subpackages; never the graphs beside it, graphs/study/,
graphs/labels/ or evals/.
"""
