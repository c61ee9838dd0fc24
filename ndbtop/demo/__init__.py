"""A simulated cluster watched by the real collectors: the demo's hub and frozen captures.

``sim`` plays a cluster on loopback and knows nothing of the collectors; ``collect``
reads clusters and knows nothing of the simulator. This package joins the two.
"""
