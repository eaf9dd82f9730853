"""Reviewing a change: survey diff, its report as data for the comment job, where each changed file
belongs."""
