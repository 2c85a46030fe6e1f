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
#include <sys/resource.h>
#include <linux/capability.h>
#include <stdatomic.h>

static long futex(_Atomic uint32_t *u, int op, uint32_t val, void *t, _Atomic uint32_t *u2, uint32_t v3){ return syscall(SYS_futex,u,op,val,t,u2,v3);}
static int eff_prio(pid_t tid){ char p[64],b[512]; snprintf(p,64,"/proc/self/task/%d/stat",tid); FILE*f=fopen(p,"r"); if(!f)return 999; fgets(b,512,f); fclose(f);
  char*s=strrchr(b,')'); int field=2; long v=0; char*tok=strtok(s+2," "); field=3; while(tok){ if(field==18){v=atol(tok);break;} tok=strtok(NULL," "); field++;} return (int)(-1-v); }
static void drop_nice(void){ struct __user_cap_header_struct h={_LINUX_CAPABILITY_VERSION_3,0}; struct __user_cap_data_struct d[2]; syscall(SYS_capget,&h,d);
  d[0].effective&=~(1u<<CAP_SYS_NICE); d[0].permitted&=~(1u<<CAP_SYS_NICE); d[0].inheritable=0; if(syscall(SYS_capset,&h,d))perror("capset");
  struct rlimit rl; getrlimit(RLIMIT_RTPRIO,&rl); printf("RLIMIT_RTPRIO soft %ld hard %ld\n",(long)rl.rlim_cur,(long)rl.rlim_max); rl.rlim_cur=0; rl.rlim_max=0; setrlimit(RLIMIT_RTPRIO,&rl);}
static int setp(int p){ struct sched_param sp={p}; return sched_setparam(0,&sp)?errno:0; }
static _Atomic uint32_t piL, piL2, waitw; static _Atomic pid_t tidL, tidL2, tidB; static _Atomic int stop;
static void*owner(void*a){ _Atomic uint32_t*w=a; pid_t t=gettid(); uint32_t z=0; atomic_compare_exchange_strong(w,&z,(uint32_t)t); if(w==&piL)tidL=t; else tidL2=t; while(!stop) usleep(1000); return 0;}
static void h(int s){(void)s;}
static void*booster(void*a){ tidB=gettid(); for(int i=0;i<2;i++){ long r=futex(&waitw,FUTEX_WAIT_REQUEUE_PI|FUTEX_PRIVATE_FLAG,0,NULL,i==0?&piL:&piL2,0); printf("booster: wait_requeue_pi returned %ld errno %s\n",r,r?strerror(errno):"-"); } return 0;}
static pthread_t mk(void*(*f)(void*),void*a,int prio){ pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setinheritsched(&at,PTHREAD_EXPLICIT_SCHED); pthread_attr_setschedpolicy(&at,SCHED_FIFO); struct sched_param sp={prio}; pthread_attr_setschedparam(&at,&sp); pthread_t t; int e=pthread_create(&t,&at,f,a); if(e){printf("create prio %d: %s\n",prio,strerror(e));} return t;}
int main(){ struct sched_param sp={50}; if(sched_setscheduler(0,SCHED_FIFO,&sp))perror("fifo"); signal(SIGRTMIN+3,h);
  struct sigaction sa={0}; sa.sa_handler=h; sigaction(SIGRTMIN+3,&sa,0);
  drop_nice();
  printf("A: lower 50->40: %s\n", strerror(setp(40)));
  printf("A: raise 40->45: %s\n", strerror(setp(45)));
  mk(owner,(void*)&piL,10); mk(owner,(void*)&piL2,10); while(!tidL||!tidL2) usleep(100);
  printf("B: owners at %d %d\n",eff_prio(tidL),eff_prio(tidL2));
  mk(booster,0,30); while(!tidB) usleep(100); usleep(2000);
  long r=futex(&waitw,FUTEX_CMP_REQUEUE_PI|FUTEX_PRIVATE_FLAG,1,(void*)1,&piL,0); printf("C: requeue_pi -> L: %ld %s\n",r,r<0?strerror(errno):"");
  usleep(2000); printf("C: L effective prio %d (boosted to 30?), L2 %d, word %#x\n",eff_prio(tidL),eff_prio(tidL2),piL);
  syscall(SYS_tgkill,getpid(),tidB,SIGRTMIN+3); usleep(2000);
  printf("C: after signal: L %d\n",eff_prio(tidL));
  r=futex(&waitw,FUTEX_CMP_REQUEUE_PI|FUTEX_PRIVATE_FLAG,1,(void*)1,&piL2,0); printf("C: requeue_pi -> L2: %ld %s\n",r,r<0?strerror(errno):"");
  usleep(2000); printf("C: L %d, L2 %d\n",eff_prio(tidL),eff_prio(tidL2));
  syscall(SYS_tgkill,getpid(),tidB,SIGRTMIN+3); usleep(2000); printf("C: after signal: L2 %d\n",eff_prio(tidL2));
  stop=1; usleep(5000); return 0; }
