#!/bin/bash
#SBATCH -J bwa-align
#SBATCH -p cpu
#SBATCH -c 8
#SBATCH --mem=16G
#SBATCH -t 1:00:00
#SBATCH -o %x.%j.out
#SBATCH -e %x.%j.err
# corpus-file: bwa-align.@JOB@.out
# corpus-file: bwa-align.@JOB@.err
# corpus-expect: ^CORPUS-OK bwa threads=8 reads=4$

set -e
THREADS=${SLURM_CPUS_PER_TASK:-1}
printf '@r%d\nACGT\n+\nIIII\n' 1 2 3 4 > sample.fastq
# bwa mem -t $THREADS ref.fa sample.fastq > sample.sam
reads=$(grep -c '^@r' sample.fastq)
echo "aligned $reads reads with $THREADS threads" >&2
echo "CORPUS-OK bwa threads=$THREADS reads=$reads"
