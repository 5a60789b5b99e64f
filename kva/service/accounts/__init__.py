"""Accounts: registering and logging in, sessions, passwords, nicknames, a player's preferences and
lesson progress."""
