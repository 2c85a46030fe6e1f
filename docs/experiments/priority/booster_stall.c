/* SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _GNU_SOURCE
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdatomic.h>
static long futex(_Atomic uint32_t *u, int op, uint32_t val, void *t, _Atomic uint32_t *u2, uint32_t v3){ return syscall(SYS_futex,u,op,val,t,u2,v3);}
static int eff_prio(pid_t tid){ char p[64],b[512]; snprintf(p,64,"/proc/self/task/%d/stat",tid); FILE*f=fopen(p,"r"); if(!f)return 999; fgets(b,512,f); fclose(f);
  char*s=strrchr(b,')'); long v=0; int field=3; char*tok=strtok(s+2," "); while(tok){ if(field==18){v=atol(tok);break;} tok=strtok(NULL," "); field++;} return (int)(-1-v); }
static void h(int s){(void)s;}
static double now(){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e9+t.tv_nsec; }
static _Atomic uint32_t pi, bw; static _Atomic pid_t tidL, tidB; static _Atomic int spin, bret;
static void*owner(void*a){ (void)a; pid_t t=gettid(); uint32_t z=0; atomic_compare_exchange_strong(&pi,&z,(uint32_t)t); tidL=t; while(!spin) usleep(200); double e=now()+60e6; while(now()<e); return 0;}
static void*booster(void*a){ (void)a; tidB=gettid(); long r=futex(&bw,FUTEX_WAIT_REQUEUE_PI|FUTEX_PRIVATE_FLAG,0,0,&pi,0); bret=r?errno:-1; return 0;}
static pthread_t mk(void*(*f)(void*),void*a,int prio){ pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setinheritsched(&at,PTHREAD_EXPLICIT_SCHED); pthread_attr_setschedpolicy(&at,SCHED_FIFO); struct sched_param sp={prio}; pthread_attr_setschedparam(&at,&sp); pthread_t t; pthread_create(&t,&at,f,a); return t;}
int main(){ setvbuf(stdout,0,_IONBF,0); struct sched_param sp={50}; sched_setscheduler(0,SCHED_FIFO,&sp);
  struct sigaction sa={0}; sa.sa_handler=h; sigaction(SIGRTMIN+3,&sa,0);
  mk(owner,0,10); mk(booster,0,30); while(!tidL||!tidB) usleep(100); usleep(2000);
  futex(&bw,FUTEX_CMP_REQUEUE_PI|FUTEX_PRIVATE_FLAG,1,(void*)1,&pi,0); usleep(1000);
  printf("L boosted: %d; L now spins 60 ms at its boosted priority\n",eff_prio(tidL));
  spin=1; usleep(5000);
  syscall(SYS_tgkill,getpid(),tidB,SIGRTMIN+3); usleep(20000);
  printf("20 ms after signalling the booster (same CPU, equal priority): booster returned=%d, L prio %d\n",(int)bret,eff_prio(tidL));
  usleep(60000); printf("after L stopped spinning: booster returned=%d (%s), L prio %d\n",(int)bret,strerror(bret),eff_prio(tidL)); return 0; }
