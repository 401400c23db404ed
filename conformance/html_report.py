"""``conformance.html_report.write_html`` (the documented spelling).

The HTML report lives in :mod:`conformance.report.html`.
"""

from conformance.report.html import render_html, write_html

__all__ = ["render_html", "write_html"]
