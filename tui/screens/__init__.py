"""The screens of the logkb TUI, one per module."""

from tui.screens.graph import GraphScreen
from tui.screens.help import HelpScreen
from tui.screens.prompt import ConfirmPrompt, TextPrompt
from tui.screens.replay import ReplayScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.timeline import TimelineScreen

__all__ = ["ConfirmPrompt", "GraphScreen", "HelpScreen", "ReplayScreen", "SessionsScreen",
           "TextPrompt", "TimelineScreen"]
