"""Tests of the opencode fixture writer and the Blackwell campaign fixture."""
