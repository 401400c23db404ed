"""Executors of central operation plans (Generic, CPU and adapters)."""
