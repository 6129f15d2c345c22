#!/bin/sh
# Entry point of the Docker image: `mediagate api | worker | sim` runs that part of the gateway as PID 1's only
# child via exec, so SIGTERM from `docker stop` reaches Node and its graceful shutdown. Anything else is run as
# given (e.g. `sh` for debugging).
set -eu
case "${1:-api}" in
  api | worker | sim) exec node "/app/dist/$1/main.js" ;;
  *) exec "$@" ;;
esac
