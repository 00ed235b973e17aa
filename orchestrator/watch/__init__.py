"""Following a live run: the journal's tail, the gateway's decisions, the monitor's alerts, and the run's
state reported to the gateway."""
