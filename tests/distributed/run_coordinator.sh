#!/bin/bash
# Starts two processes of $1 without mpirun: they meet at a coordinator on this machine.
port=$((20000 + RANDOM % 40000))
"$1" "127.0.0.1:$port" 1 &
"$1" "127.0.0.1:$port" 0
first=$?
wait $!
exit $((first | $?))
