"""``python -m survey_tools``: the same command as ``survey``, for a checkout run with
``PYTHONPATH`` or an environment whose scripts folder is not on ``PATH``."""

from survey_tools.cli import main

if __name__ == "__main__":
    main()
