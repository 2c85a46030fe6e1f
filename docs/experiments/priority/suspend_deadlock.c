/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _GNU_SOURCE
#include <stdio.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <time.h>
static _Atomic uint32_t resume; static FILE* f; static _Atomic pid_t tidP; static _Atomic long dprints;
/* the suggested preemption handler: wait (async-signal-safe) until designated again */
static void preempt(int s){ (void)s; while(!resume) syscall(SYS_futex,&resume,FUTEX_WAIT_PRIVATE,0,0,0,0); }
static void*P(void*a){ (void)a; tidP=gettid(); for(;;) fprintf(f,"low-priority process output %d\n",42); }
static void*D(void*a){ (void)a; for(int i=0;i<1000;i++){ fprintf(f,"designated %d\n",i); dprints++; } return 0; }
int main(){ setvbuf(stdout,0,_IONBF,0); f=fopen("/dev/null","w"); struct sigaction sa={0}; sa.sa_handler=preempt; sigaction(SIGRTMIN+4,&sa,0);
  pthread_t p,d; pthread_create(&p,0,P,0); while(!tidP) usleep(100); usleep(10000);
  int hung=0;
  for(int trial=0;trial<20 && !hung;trial++){ resume=0; syscall(SYS_tgkill,getpid(),tidP,SIGRTMIN+4); usleep(2000);
    dprints=0; pthread_create(&d,0,D,0); usleep(200000);
    if(dprints<1000){ printf("trial %d: the designated thread is stuck after %ld prints (the preempted thread holds the FILE lock)\n",trial,(long)dprints); hung=1; }
    resume=1; syscall(SYS_futex,&resume,FUTEX_WAKE_PRIVATE,1,0,0,0); pthread_join(d,0); }
  if(!hung) printf("no hang in 20 trials\n"); return 0; }
