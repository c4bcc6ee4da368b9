#!/bin/bash
#SBATCH --job-name=export-vars
#SBATCH --export=ALL,FOO=bar,LR=0.01
#SBATCH --time=5
# corpus-expect: ^CORPUS-OK export foo=bar lr=0.01 submit_env=present$

# FOO and LR from the directive, CORPUS_SUBMIT_ENV from sbatch's environment.
echo "CORPUS-OK export foo=$FOO lr=$LR submit_env=${CORPUS_SUBMIT_ENV:-missing}"
