"""One router per resource; `paperkg.api.app.create_app` includes them all."""
