#!/bin/bash
#SBATCH --job-name=tagged
#SBATCH --comment="exp=baseline lr=0.1"
#SBATCH --wckey=research
#SBATCH --time=00:05:00
# corpus-expect: ^CORPUS-OK comment_wckey$
# corpus-cmd: scontrol show job @JOB@ ~ Comment=exp=baseline lr=0.1
# corpus-cmd: sacct -X -n -P -j @JOB@ -o Comment,WCKey ~ ^exp=baseline lr=0.1\|research$

echo "CORPUS-OK comment_wckey"
