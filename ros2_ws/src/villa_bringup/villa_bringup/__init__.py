"""Bring-up of the villa stack: the `villa` command, team configuration and launch files."""
