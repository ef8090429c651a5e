#!/usr/bin/env python3
"""Print the structure of every answer in a labelling folder: facts for the labeller, no judgments.

Copied into each labelling folder by ``make_round.py label-dir`` (run it there: ``python3 check.py``).
It reads ``answers/<session>/batch-NN.<variant>.txt`` and ``batches/<session>/batch-NN.json`` next to
itself, and lists, per answer: parse problems, scene ids against the pool, message ids, and per memory
its type, priority, cited sources with their roles, and metadata. It deliberately re-derives these facts
with no import of memvet: the labeller must never see memvet's findings.
"""
import glob
import json
import os
import re

base = os.path.dirname(os.path.abspath(__file__))
META={'work_fact':{'work_object','status','activity_start_time','activity_end_time','project','projectEvidence'},
 'work_task':{'deadline','owner','project','projectEvidence'},
 'work_method':{'scope','method_type','project','projectEvidence'},
 'work_artifact':{'artifact_type','artifact_ref','project','projectEvidence'}}
ENUM={'scope':{'self','global','unknown'},'method_type':{'sop','principle','constraint','anti_pattern','heuristic','evaluation_criterion','reasoning_pattern'},
 'artifact_type':{'doc','pr','issue','commit','repo','branch','design','report','prompt','dataset'}}
MEMKEYS={'content','type','taskState','priority','source_message_ids','metadata'}
SCENEKEYS={'scene_id','new_scene_name','new_scene_reason','message_ids','memories','scene_name'}
def cjk(s): return len(re.findall(r'[\u4e00-\u9fff]',s))


def main():
    for f in sorted(glob.glob(f'{base}/answers/*/*.txt')):
        S=os.path.basename(os.path.dirname(f))
        name=os.path.basename(f); nn=name.split('.')[0]
        b=json.load(open(f'{base}/batches/{S}/{nn}.json'))
        raw=open(f,encoding='utf-8').read()
        print('=====',S,name)
        st=raw.strip()
        if not st.startswith('['): print('  S002? starts with', repr(st[:30]))
        if not st.endswith(']'): print('  S002? ends with', repr(st[-30:]))
        try: a=json.loads(st)
        except Exception as e:
            m=re.search(r'\[.*\]',st,re.S)
            try: a=json.loads(m.group(0)); print('  parsed after unwrap')
            except Exception as e2: print('  PARSE FAIL',e2); continue
        new={m['id']:m for m in b['messages']}; bg={m['id'] for m in b['background']}
        pool={p['id'] for p in b['scenePool']}
        seen={}
        for i,sc in enumerate(a):
            for k in sc:
                if k not in SCENEKEYS: print(f'  S004 unknown scene key /{i}/{k}')
            if 'scene_id' in sc:
                if sc['scene_id'] not in pool: print(f'  I001 /{i}/scene_id {sc["scene_id"]}')
                if 'new_scene_name' in sc or 'new_scene_reason' in sc: print(f'  S006 /{i}')
                if 'scene_name' in sc: print(f'  S008 /{i}/scene_name')
            else:
                if ('new_scene_name' in sc)!=('new_scene_reason' in sc): print(f'  S007 /{i}')
                if 'new_scene_name' in sc: print(f'  new scene /{i}: {sc["new_scene_name"]} | {sc.get("new_scene_reason")}')
                else: print(f'  S009 /{i}')
            mids=sc.get('message_ids',[])
            if len(mids)!=len(set(mids)): print(f'  I007 /{i}/message_ids')
            for j,x in enumerate(mids):
                if x in bg and x not in new: print(f'  I003 /{i}/message_ids/{j} {x}')
                elif x not in new: print(f'  I002 /{i}/message_ids/{j} {x}')
                if x in seen: print(f'  I006 {x} in /{seen[x]} and /{i}')
                seen[x]=i
            if not sc.get('memories'): print(f'  S005 /{i}')
            for k,m in enumerate(sc.get('memories',[])):
                p=f'/{i}/memories/{k}'
                for kk in m:
                    if kk not in MEMKEYS: print(f'  S004 unknown mem key {p}/{kk}')
                for kk in ['content','type','priority','source_message_ids']:
                    if kk not in m: print(f'  S004 missing {p}/{kk}')
                t=m.get('type')
                if t not in META: print(f'  S004 type {p}/type {t}')
                if 'taskState' in m:
                    if t!='work_task': print(f'  T001 {p}/taskState')
                    elif m['taskState'] not in ('open','done','dropped'): print(f'  S004 {p}/taskState')
                pr=m.get('priority')
                if not isinstance(pr,int) or isinstance(pr,bool): print(f'  S004 priority {p}/priority {pr!r}')
                elif pr<70: print(f'  T005 {p}/priority {pr}')
                elif pr>100: print(f'  S004 {p}/priority {pr}')
                src=m.get('source_message_ids',[])
                if not src: print(f'  S004 empty sources {p}')
                if len(src)!=len(set(src)): print(f'  I007 {p}/source_message_ids')
                sess=set()
                for j,x in enumerate(src):
                    if x in bg and x not in new: print(f'  I003 {p}/source_message_ids/{j} {x}')
                    elif x not in new: print(f'  I002 {p}/source_message_ids/{j} {x}')
                    else: sess.add(new[x]['sessionKey'])
                    if x not in mids: print(f'  I004 {p}/source_message_ids/{j} {x}')
                if len(sess)>1: print(f'  I005 {p}')
                md=m.get('metadata',{})
                if not isinstance(md,dict): print(f'  S004 metadata {p}'); md={}
                for kk,v in md.items():
                    if t in META and kk not in META[t]: 
                        code='T002' if (kk=='status' and t=='work_task') else 'T003'
                        print(f'  {code} {p}/metadata/{kk} = {v!r}')
                    if kk in ENUM and v not in ENUM[kk]: print(f'  T004 {p}/metadata/{kk} = {v!r}')
                if 'project' in md:
                    ev=md.get('projectEvidence')
                    if not ev: print(f'  I008 {p}/metadata/project')
                    else:
                        for j,x in enumerate(ev):
                            if x not in src: print(f'  I009 {p}/metadata/projectEvidence/{j} {x}')
                elif 'projectEvidence' in md: print(f'  note: projectEvidence without project {p}')
                for tk in ('deadline','activity_start_time','activity_end_time'):
                    if tk in md: print(f'  TIME {p}/metadata/{tk} = {md[tk]}  src ts: {[ (x,new.get(x,{}).get("timestamp"),new.get(x,{}).get("recordedAt")) for x in src]}')
                c=m.get('content','')
                if cjk(c)>0: print(f'  LANG? {p} has CJK {cjk(c)}')
                print(f'  {p} [{t} {pr}] src={src} roles={[new[x]["role"] for x in src if x in new]} md={md}')
        # language of new msgs
        txt=' '.join(m['content'] for m in b['messages'] if m['role'] in('user','assistant'))
        print('  batch CJK chars', cjk(txt), 'total', len(txt))


if __name__ == '__main__':
    main()
