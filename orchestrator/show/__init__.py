"""What a person sees of a run: status, live progress, the summary, and how the CLI prints."""
