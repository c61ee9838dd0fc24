"""The ``--once`` report of a snapshot, as a JSON object or as readable tables.

JSON field names are a public interface: later versions add fields, never
rename them.
"""

from __future__ import annotations

from ndbtop.report.as_json import error_log_json, report_json
from ndbtop.report.as_text import error_log_line, report_text

__all__ = ["error_log_json", "error_log_line", "report_json", "report_text"]
