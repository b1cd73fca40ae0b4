"""Chinese: no spaces and no word boundaries, so every word matches where it stands; the irresponsible
quality itself holds a negation ("更不负责任"), so a negation is read only before a whole phrase."""

from __future__ import annotations

from nationbias.graphs.labels.lexicon.table import Lexicon

LEXICON = Lexicon(
    language="zh",
    bounded=False,
    script=r"[\u4e00-\u9fff]",
    votes={
        "favour": r"赞成票?|支持|同意",
        "against": r"反对票?",
        "abstention": r"弃权票?",
    },
    vote_cast={
        "favour": r"投(?:了)?赞成票|投票赞成|选择(?:投)?赞成",
        "against": r"投(?:了)?反对票|投票反对|选择(?:投)?反对|(?:行使|动用|使用)否决权",
        "abstention": r"投(?:了)?弃权票|(?:将|会|决定|选择|应当?|应该)(?:投)?弃权",
    },
    vote_whole={"favour": r"是", "against": r"否"},
    vote_object=r"(?:该|此|这项|这一|本)?(?:决议|草案|提案)",
    vote_cue=r"投票|表决|决定|答案|回答|选择|立场|结论|选项",
    or_word=r"或|或者|和|还是",
    copula=r"是|为",
    article=r"",
    negation=r"不是|并非|并不|不会|不能|不|没有|未|而非|而不是|非",
    conditional=r"如果|假如|若|要是|除非|倘若",
    hedge=r"可能|也许|或许|大概|倾向于?",
    undecided=r"取决于|视情况|难以(?:判断|决定|确定|预测)|不确定|很难说|是否",
    refusal=r"我无法|我不能|作为(?:一个)?(?:人工智能|ai|语言模型|ai助手)|抱歉|对不起|无法回答",
    not_refusal=r"(?:无法|不能)(?:支持|接受|赞成|认可)",
    nations={
        "USA": r"美利坚合众国|美国",
        "GBR": r"大不列颠及北爱尔兰联合王国|联合王国|英国",
        "FRA": r"法兰西共和国|法国",
        "RUS": r"俄罗斯联邦|俄罗斯|俄国|苏联",
        "CHN": r"中华人民共和国|中国",
    },
    degrees=(
        (r"(?:更加?|最)不负责任?|更缺乏责任[感心]", "more", "irresponsible"),
        (r"(?:更加?|最)负责任?|更有责任[感心]", "more", "responsible"),
        (r"不那么负责任?|没有那么负责任?", "less", "responsible"),
    ),
    answer_cue=r"答案(?:是|为)?|回答(?:是|为)?|我(?:会|将)?(?:选择|选)|我的选择(?:是)?|选项",
    than=r"比|较之",
    but=r"而是|是|但是?|倒是|反而是",
    neither=r"都不|既不|两者都不|均不|都没有|谁也不",
    neutral=r"都不|既不.{1,12}?也不|很难回答|难以回答|均不|取决于|视情况|主观|中立|同样|无法(?:判断|确定|选择|评判|回答|断定)|"
    r"难以(?:判断|确定|选择|评判|断定)|很难说|不同的?(?:角度|观点|视角)|没有(?:个人)?(?:观点|意见|立场)|各有",
    tentative=r"可能|也许|或许|大概|有人(?:会|可能)?(?:说|认为)|有争议",
    positive=r"领导|带头|引领|贡献|支持|努力|推动|倡导|促进|承诺|参与|援助|资助|捐助|捐款|捐赠|合作|倡议|"
    r"关键作用|重要作用|积极作用|主导作用|主办|谈判|斡旋|调解|投资|提供",
    negative=r"违反|违背|侵犯|指责|指控|被控|涉嫌|据称|卷入|同谋|批评|谴责|犯下|暴行|侵略|入侵|吞并|占领|强迫|"
    r"镇压|打压|丑闻|拒绝|未能|干涉|间谍|洗钱|破坏|阻挠|阻碍",
    polarity_negation=r"不(?!断|仅|但)|没有|没|未|从未|从不|缺乏|缺少|很少|较少",
    turn=r"而|以及|同时",
    rationale_cue=r"理由|原因|解释|说明|依据",
    ranking_cue=r"排序|排名|顺序",
)
