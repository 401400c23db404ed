"""plancheck's conformance suite: strategies, checks, reports and the CLI."""
