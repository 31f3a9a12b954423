"""paperkg.api"""
