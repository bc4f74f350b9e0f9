"""Expressivity of attention: the mathematics behind the reproduction."""
