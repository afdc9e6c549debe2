"""Staged, resumable jobs: plan tiers and chunks as data, then execute them anywhere."""
