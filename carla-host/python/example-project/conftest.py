# The project's root on sys.path, so tests import lane_follower.
