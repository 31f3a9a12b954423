"""paperkg.queries"""
