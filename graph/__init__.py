"""paperkg.graph"""
