"""A plan: its model and checks (``model``), its file (``file``), gathering one from a request in plain words
(``gather``) and what it still needs to run here (``readiness``)."""
