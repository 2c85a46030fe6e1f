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
#include <sys/resource.h>
#include <linux/capability.h>
#include <stdatomic.h>
static long futex(_Atomic uint32_t *u, int op, uint32_t val, void *t, _Atomic uint32_t *u2, uint32_t v3){ return syscall(SYS_futex,u,op,val,t,u2,v3);}
static int eff_prio(pid_t tid){ char p[64],b[512]; snprintf(p,64,"/proc/self/task/%d/stat",tid); FILE*f=fopen(p,"r"); if(!f)return 999; fgets(b,512,f); fclose(f);
  char*s=strrchr(b,')'); long v=0; int field=3; char*tok=strtok(s+2," "); while(tok){ if(field==18){v=atol(tok);break;} tok=strtok(NULL," "); field++;} return (int)(-1-v); }
static void drop_nice(void){ struct __user_cap_header_struct h={_LINUX_CAPABILITY_VERSION_3,0}; struct __user_cap_data_struct d[2]; syscall(SYS_capget,&h,d);
  d[0].effective&=~(1u<<CAP_SYS_NICE); d[0].permitted&=~(1u<<CAP_SYS_NICE); if(syscall(SYS_capset,&h,d))perror("capset"); }
static void h(int s){(void)s;}
static _Atomic uint32_t pi, bw, lockpi_done; static _Atomic pid_t tidL, tidB, tidC; static _Atomic int stop, childprio=-1, waiting;
static void*child(void*a){ (void)a; tidC=gettid(); while(!stop) usleep(500); return 0;}
static void*owner(void*a){ (void)a; pid_t t=gettid(); uint32_t z=0; atomic_compare_exchange_strong(&pi,&z,(uint32_t)t); tidL=t;
  while(childprio==-1) usleep(200);
  pthread_t c; pthread_create(&c,0,child,0); while(!tidC) usleep(100); { struct sched_param q; int pol; pthread_getschedparam(c,&pol,&q); childprio=eff_prio(tidC)*1000+q.sched_priority; }
  while(!stop) usleep(500); return 0;}
static void*locker(void*a){ (void)a; tidB=gettid(); long r=futex(&pi,FUTEX_LOCK_PI|FUTEX_PRIVATE_FLAG,0,0,0,0); lockpi_done=1; printf("locker: lock_pi returned %ld %s\n",r,r?strerror(errno):""); return 0;}
static _Atomic pid_t tidW; static _Atomic long nloops;
static void*waiter(void*a){ (void)a; tidW=gettid(); for(;;){ uint32_t s=bw; waiting=s+1; long r=futex(&bw,FUTEX_WAIT_REQUEUE_PI|FUTEX_PRIVATE_FLAG,s,0,&pi,0); (void)r; nloops++; if(stop) return 0; } }
static pthread_t mk(void*(*f)(void*),void*a,int prio){ pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setinheritsched(&at,PTHREAD_EXPLICIT_SCHED); pthread_attr_setschedpolicy(&at,SCHED_FIFO); struct sched_param sp={prio}; pthread_attr_setschedparam(&at,&sp); pthread_t t; int e=pthread_create(&t,&at,f,a); if(e){printf("create prio %d: %s\n",prio,strerror(e));} return t;}
static double now(){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e9+t.tv_nsec; }
int main(){ setvbuf(stdout,0,_IONBF,0); struct sched_param sp={50}; sched_setscheduler(0,SCHED_FIFO,&sp);
  struct sigaction sa={0}; sa.sa_handler=h; sigaction(SIGRTMIN+3,&sa,0);
  drop_nice();
  mk(owner,0,10); while(!tidL) usleep(100);
  mk(locker,0,30); usleep(3000); printf("D: L boosted by LOCK_PI: %d\n",eff_prio(tidL));
  syscall(SYS_tgkill,getpid(),tidB,SIGRTMIN+3); usleep(3000);
  printf("D: after signal to LOCK_PI waiter: done=%d L=%d (restarted => still boosted)\n",(int)lockpi_done,eff_prio(tidL));
  childprio=-2; while(childprio==-2) usleep(200);
  printf("E: child created (inherit) by L (base 10, boosted 30) has prio %d\n",(int)childprio);
  /* F: wake on requeue-pi waiter, and retarget cost */
  stop=0; mk(waiter,0,30); while(!waiting) usleep(100); usleep(1000);
  long r=futex(&bw,FUTEX_WAKE|FUTEX_PRIVATE_FLAG,1,0,0,0); printf("F: FUTEX_WAKE on a requeue-pi waiter: %ld %s\n",r,r<0?strerror(errno):"");
  /* bump then signal before requeue: restart sees changed value */
  long n0=nloops; bw++; syscall(SYS_tgkill,getpid(),tidW,SIGRTMIN+3); usleep(2000); printf("F: bump+signal before requeue: loops %ld -> %ld\n",n0,(long)nloops);
  int N=20000; double t0=now(); long fails=0;
  for(int i=0;i<N;i++){ uint32_t want=bw+1; while(waiting!=want) { } /* waiter re-queued on bw value */
    while(futex(&bw,FUTEX_CMP_REQUEUE_PI|FUTEX_PRIVATE_FLAG,1,(void*)1,&pi,bw)!=1) fails++;
    bw++; syscall(SYS_tgkill,getpid(),tidW,SIGRTMIN+3); }
  double t1=now(); printf("F: boost+unboost cycle %.2f us (requeue retries %ld), L now %d\n",(t1-t0)/N/1000,fails,eff_prio(tidL));
  stop=1; bw++; syscall(SYS_tgkill,getpid(),tidW,SIGRTMIN+3); usleep(3000); _exit(0); }
