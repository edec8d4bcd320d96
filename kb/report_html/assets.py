"""The report's inline stylesheet and script (no CDN, no network: the page carries them).

The script does three things: search (over the JSON index the page embeds; results are
built with ``textContent``, never ``innerHTML``), opening the step a link points at
(``#m4126``: its collapsed steps open, it scrolls into view and is highlighted), and
nothing else."""

CSS = r"""
:root{--fg:#1b1f24;--muted:#5b6570;--line:#d8dde3;--bg:#fff;--soft:#f5f7f9;--red:#b03a2e;
--redbg:#f9d6d5;--green:#1e8449;--greenbg:#d4efdf;--orange:#ca6f1e;--orangebg:#fde8c8;
--blue:#2471a3;--bluebg:#d6eaf8;--gray:#7b7d7d;--graybg:#e5e7e9;--yellow:#b7950b;--yellowbg:#fef9e7}
*{box-sizing:border-box}[id]{scroll-margin-top:64px}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
color:var(--fg);background:var(--bg)}
a{color:var(--blue);text-decoration:none}a:hover{text-decoration:underline}
header.top{position:sticky;top:0;z-index:5;background:#fffffff2;border-bottom:1px solid var(--line);
padding:8px 16px;display:flex;gap:12px;align-items:center;flex-wrap:nowrap}
header.top>a{white-space:nowrap;flex:none}header.top .crumb{font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;flex:1 1 auto;min-width:0}
header.top .search{margin-left:auto;position:relative;flex:0 1 340px;min-width:180px}
header.top input{width:100%;padding:6px 10px;border:1px solid var(--line);border-radius:6px;font:inherit}
#results{position:absolute;right:0;top:100%;width:min(560px,94vw);max-height:70vh;overflow:auto;
background:#fff;border:1px solid var(--line);border-radius:6px;box-shadow:0 6px 24px #0002;
margin:4px 0 0;padding:4px 0;list-style:none;display:none}
#results.on{display:block}
#results li a{display:block;padding:5px 10px;color:var(--fg);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#results li a:hover,#results li a:focus{background:var(--soft);text-decoration:none}
#results .rk{display:inline-block;min-width:5.5em;color:var(--muted);font-size:12px}
#results .count{padding:4px 10px;color:var(--muted);font-size:12px}
main{max-width:1180px;margin:0 auto;padding:12px 16px 64px}
h1{font-size:22px;margin:10px 0 4px;overflow-wrap:anywhere}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
.meta{color:var(--muted);font-size:13px}
.figs{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
.fig{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:6px 10px;min-width:96px}
.fig b{display:block;font-size:17px}.fig span{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;white-space:nowrap}
td.d{white-space:nowrap}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.sub td:first-child{padding-left:26px}tr.total td{font-weight:600;border-top:2px solid var(--line)}
.scroll{overflow-x:auto}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;white-space:nowrap;border:1px solid}
.dead_end{background:var(--redbg);color:var(--red);border-color:var(--red)}
.blocked{background:var(--orangebg);color:var(--orange);border-color:var(--orange)}
.superseded{background:var(--graybg);color:var(--gray);border-color:var(--gray)}
.confirmed{background:var(--greenbg);color:var(--green);border-color:var(--green)}
.open{background:var(--bluebg);color:var(--blue);border-color:var(--blue)}
.answered{background:var(--greenbg);color:var(--green);border-color:var(--green)}
.cause{border:1px solid var(--red);border-radius:8px;padding:4px 12px 8px;margin:10px 0;background:#fffafa}
.cause>h3{color:var(--red);margin:6px 0}
details.deadend{border-top:1px solid var(--line);padding:4px 0}
details.deadend>summary{cursor:pointer;font-weight:600}
details.deadend ul{margin:4px 0 6px;padding-left:22px}
.why{margin:4px 0 4px 18px;color:#333}
figure{margin:8px 0;overflow-x:auto}
.graphbox svg.graph{max-width:100%;height:auto}.graphbox.full svg.graph{max-width:none}
.zoom{font:inherit;font-size:12px;border:1px solid var(--line);background:var(--soft);border-radius:5px;
padding:2px 8px;cursor:pointer;margin:0 0 4px}
svg.plot{width:100%;max-width:760px;min-width:560px;height:auto;font:11px system-ui,sans-serif}
svg.plot .grid{stroke:#e6e9ed}svg.plot .series{fill:none;stroke:var(--blue);stroke-width:1.6}
svg.plot .dot{fill:var(--blue)}svg.plot .axis{fill:var(--muted)}
svg.plot .key{fill:#fff;stroke:var(--fg);stroke-width:1.5}svg.plot .key.best{stroke:var(--green);fill:var(--greenbg)}
svg.plot .keylabel{font-weight:600}
.pages{display:flex;flex-wrap:wrap;gap:6px;margin:6px 0}
.pages a,.pages span{border:1px solid var(--line);border-radius:5px;padding:2px 8px;font-size:13px}
.pages span{background:var(--soft)}
.msg{border-left:3px solid transparent;padding:1px 0 1px 6px;scroll-margin-top:64px}
.msg:target,.msg.hit{border-left-color:var(--orange);background:#fff8ec}
.st{margin:1px 0;font-size:13.5px;scroll-margin-top:64px}
.st .o{display:inline-block;min-width:3.6em;color:var(--muted);font-variant-numeric:tabular-nums;font-size:12px}
.st .k{display:inline-block;min-width:5.2em;color:var(--muted);font-size:12px}
.st.prose{padding:2px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.st.prompt{background:var(--bluebg);border-radius:4px;padding:4px 6px;margin:6px 0}
.st.c-dead-end,.st.c-pivot,.st.c-decision,.st.c-conclusion{font-weight:600}
details.call>summary{cursor:pointer;display:flex;align-items:baseline;gap:2px;list-style:none}
details.call>summary::-webkit-details-marker{display:none}
details.call>summary::before{content:"\25B8";color:var(--muted);width:1em;flex:none}
details.call[open]>summary::before{content:"\25BE"}
details.call>summary code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;flex:1 1 auto;
min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
details.call>summary .o,details.call>summary .k{flex:none}
details.call.fail>summary code{color:var(--red)}
.res{font-size:12px;margin-left:6px;flex:0 1 auto;max-width:45%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.res.bad{color:var(--red)}.res.ok{color:var(--green)}.res.m{color:var(--blue)}
pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);
border:1px solid var(--line);border-radius:5px;padding:6px 8px;margin:4px 0 6px;white-space:pre-wrap;
overflow-wrap:anywhere;max-height:480px;overflow:auto}
pre.cmd{background:#eef3f8}
.cut{color:var(--muted);font-style:italic}
.note{color:var(--muted);font-size:13px}.show-s{display:none}
@media (max-width:640px){body{font-size:14px}main{padding:8px 10px 48px}
header.top{padding:6px 10px;flex-wrap:nowrap}header.top .crumb{display:none}
header.top .search{flex:1 1 auto;margin-left:0}
.hide-s{display:none}.show-s{display:inline}td:first-child{overflow-wrap:anywhere}th{white-space:normal}.st .o{min-width:3em}.st .k{display:none}}
"""

JS = r"""
(function(){
  "use strict";
  function openTarget(){
    var id=decodeURIComponent(location.hash.slice(1)); if(!id) return;
    var el=document.getElementById(id); if(!el) return;
    var p=el; while(p){ if(p.tagName==="DETAILS") p.open=true; p=p.parentElement; }
    el.querySelectorAll("details").forEach(function(d){d.open=true;});
    document.querySelectorAll(".hit").forEach(function(x){x.classList.remove("hit");});
    el.classList.add("hit"); el.scrollIntoView({block:"start"});
  }
  document.querySelectorAll("button.zoom").forEach(function(b){
    b.addEventListener("click",function(){
      var f=b.parentElement, full=f.classList.toggle("full");
      b.textContent=full?"fit to the page":"actual size";
    });
  });
  window.addEventListener("hashchange",openTarget);
  window.addEventListener("DOMContentLoaded",openTarget);
  document.addEventListener("click",function(e){
    var a=e.target.closest&&e.target.closest("a[href^='#']"); if(a) setTimeout(openTarget,0);
  });
  var data=document.getElementById("search-index"), input=document.getElementById("q"),
      list=document.getElementById("results");
  if(!data||!input||!list) return;
  var idx=JSON.parse(data.textContent), pages=idx.pages, rows=idx.rows, low=null;
  function run(){
    var q=input.value.trim().toLowerCase(); list.textContent="";
    if(!q){list.classList.remove("on");return;}
    if(!low) low=rows.map(function(r){return (r[2]+" "+r[3]).toLowerCase();});
    var words=q.split(/\s+/), hits=[];
    for(var i=0;i<rows.length;i++){
      var ok=true; for(var w=0;w<words.length;w++){ if(low[i].indexOf(words[w])<0){ok=false;break;} }
      if(ok) hits.push(i);
    }
    var head=document.createElement("li"); head.className="count";
    head.textContent=hits.length+(hits.length===1?" match":" matches")+(hits.length>200?" (first 200 shown)":"");
    list.appendChild(head);
    hits.slice(0,200).forEach(function(i){
      var r=rows[i], li=document.createElement("li"), a=document.createElement("a"),
          k=document.createElement("span");
      a.href=pages[r[0]]+"#"+r[1]; k.className="rk"; k.textContent=r[2];
      a.appendChild(k); a.appendChild(document.createTextNode(r[3])); a.title=r[3];
      a.addEventListener("click",function(){list.classList.remove("on");setTimeout(openTarget,0);});
      li.appendChild(a); list.appendChild(li);
    });
    list.classList.add("on");
  }
  var t=null; input.addEventListener("input",function(){clearTimeout(t);t=setTimeout(run,120);});
  input.addEventListener("focus",function(){ if(input.value.trim()) run(); });
  input.addEventListener("keydown",function(e){
    if(e.key==="Enter"){var a=list.querySelector("a"); if(a) a.click();}
    if(e.key==="Escape"){list.classList.remove("on");}
  });
  document.addEventListener("click",function(e){ if(!list.contains(e.target)&&e.target!==input) list.classList.remove("on"); });
})();
"""
