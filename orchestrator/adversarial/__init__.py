"""The adversarial loop ([adversarial], docs/swarm.md): a challenger attacks the finished work, recovery agents
fix what it finds, and the eval decides what is kept. :mod:`challenges` is what the challenger is shown and
must answer; :mod:`loop` the rounds; :mod:`report` adversarial.json and .md from the journal."""
