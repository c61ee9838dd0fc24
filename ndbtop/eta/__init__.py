"""Estimates of when things will be done: a data node's start (:mod:`ndbtop.eta.node`),
a rolling restart (:mod:`ndbtop.eta.rolling`) and a backup (:mod:`ndbtop.eta.backup`).

Headless: every estimate is a pure function of evidence the collect layer gathered, and
returns :class:`ndbtop.model.eta.Eta` (value, range, basis) or
:class:`ndbtop.model.eta.EtaMissing` (the reason there is none).
"""
