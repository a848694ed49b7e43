# gemm_block.py - time the four matmuls of one decoder block over M tokens on
# a CUDA GPU (bf16, one CUDA graph replayed 50 times); writes $OUT/gemm_h100.json,
# the rows of tests/data/serving_gemm_h100.json.  Needs PyTorch and a GPU.
import torch,json,os
d=torch.device('cuda');p=torch.cuda.get_device_properties(0)
def shapes(h,q,kv,f,tp):
    return [(h,(q+2*kv)//tp),(q//tp,h),(h,2*f//tp),(f//tp,h)]
models={'llama8b_tp1':shapes(4096,4096,1024,14336,1),'llama70b_tp4':shapes(8192,8192,1024,28672,4),'llama70b_tp2':shapes(8192,8192,1024,28672,2)}
out={'gpu':p.name,'sms':p.multi_processor_count,'torch':torch.__version__,'rows':[]}
for name,sh in models.items():
    W=[torch.randn(k,n,device=d,dtype=torch.bfloat16) for k,n in sh]
    wbytes=sum(k*n*2 for k,n in sh)
    for M in [1,8,32,64,128,160,200,256,384,512,1024,2048,4096,8192]:
        X=[torch.randn(M,k,device=d,dtype=torch.bfloat16) for k,n in sh]
        for _ in range(5):
            for x,w in zip(X,W): x@w
        torch.cuda.synchronize()
        s=torch.cuda.Event(enable_timing=True);e=torch.cuda.Event(enable_timing=True)
        g=torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for x,w in zip(X,W): x@w
        for _ in range(3): g.replay()
        torch.cuda.synchronize();s.record()
        R=50
        for _ in range(R): g.replay()
        e.record();torch.cuda.synchronize()
        t=s.elapsed_time(e)/R/1e3
        fl=sum(2*M*k*n for k,n in sh)
        out['rows'].append({'model':name,'tokens':M,'seconds':t,'tflops':fl/t/1e12,'weight_gbps':wbytes/t/1e9})
        del X
    del W
print(json.dumps(out))
open(os.environ['OUT']+'/gemm_h100.json','w').write(json.dumps(out,indent=1))
