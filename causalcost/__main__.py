import sys

from causalcost.cli.app import main

sys.exit(main())
