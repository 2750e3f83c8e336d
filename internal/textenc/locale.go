package textenc

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A locale in a file's name (vim's spell/ku/ku_TR.diff, tr_TR.po,
// messages_pl_PL.properties, ru_RU.ini) says which language the file is
// written in, and so which legacy charsets it was likely written in: Kurdish
// of Turkey in ISO-8859-9, Polish in ISO-8859-2 or Windows-1250. That is
// weak evidence, weaker than a declaration and than the repository's other
// files (prior.go): it acts only where no repository prior does, and only
// as the prior acts, on a weak choice, or on a single-byte choice whose
// reading the locale's charset nearly equals (weighLocale).

// locale is a locale read from a file name: a language (ISO 639, "ku",
// "hsb") and a region (ISO 3166, "TR"; "" when the name gives the
// language alone) as written, lower-cased; latin says a "@latin" modifier
// followed it (sr_RS@latin: Serbian in Latin letters).
type locale struct {
	lang, region string
	latin        bool
}

// maxLocaleNameBytes bounds the name read for a locale: a name is no
// longer in any file system we stage, but the parser must not depend on it.
const maxLocaleNameBytes = 255

// localeInName reads a locale in a file's base name: a language and a
// region separated by "_" or "-", as whole pieces of one of the name's
// dot-separated parts (ku_TR.diff, messages_pl_PL.properties,
// strings-pt-BR.json, menu_de_de.latin1.vim), in any case, where the pair
// is one of the locales the C library defines (knownLocales); or, in a
// gettext catalog (.po), a language alone as the name's first part
// (tr.po, ru.cp1251.po, sr@latin.po), where the name is the locale by
// convention. A language alone anywhere else is any word ("is", "to",
// "go"), and a pair the C library lacks is two words: "go_to.c",
// "id_rsa", "is_in.go", "ok_ok". The first pair found wins.
func localeInName(name string) (locale, bool) {
	if len(name) > maxLocaleNameBytes {
		return locale{}, false
	}
	name = asciiLower(name) // the codes are ASCII; other letters stay as they are
	parts := strings.Split(name, ".")
	if len(parts) > 1 {
		parts = parts[:len(parts)-1] // the extension
	}
	for _, part := range parts {
		pieces := strings.FieldsFunc(part, func(r rune) bool { return r == '_' || r == '-' })
		for i := 0; i+1 < len(pieces); i++ {
			region, modifier, _ := strings.Cut(pieces[i+1], "@")
			if knownLocales()[pieces[i]+"_"+region] {
				return locale{lang: pieces[i], region: region, latin: modifier == "latin"}, true
			}
		}
	}
	if ext := name[strings.LastIndexByte(name, '.')+1:]; ext == "po" && len(parts) > 0 {
		lang, modifier, _ := strings.Cut(parts[0], "@")
		if knownLanguages()[lang] {
			return locale{lang: lang, latin: modifier == "latin"}, true
		}
	}
	return locale{}, false
}

// asciiLower is s with its ASCII capitals in lower case, byte by byte:
// other bytes stay as they are, valid UTF-8 or not.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// glibcLocales are the language_REGION pairs of the GNU C library's
// localedata/SUPPORTED (2.23), the locales systems were set up in when
// files were written in legacy charsets, and a few older names Java
// resource bundles still use (iw_IL for Hebrew, in_ID for Indonesian,
// no_NO for Norwegian). A name piece pair outside it is not a locale.
const glibcLocales = `aa_DJ aa_ER aa_ET af_ZA agr_PE ak_GH am_ET an_ES anp_IN ar_AE ar_BH ar_DZ
ar_EG ar_IN ar_IQ ar_JO ar_KW ar_LB ar_LY ar_MA ar_OM ar_QA ar_SA ar_SD ar_SS ar_SY ar_TN ar_YE
as_IN ast_ES ayc_PE az_AZ az_IR be_BY bem_ZM ber_DZ ber_MA bg_BG bhb_IN bho_IN bho_NP bi_VU bn_BD
bn_IN bo_CN bo_IN br_FR brx_IN bs_BA byn_ER ca_AD ca_ES ca_FR ca_IT ce_RU chr_US ckb_IQ cmn_TW
crh_UA cs_CZ csb_PL cv_RU cy_GB da_DK de_AT de_BE de_CH de_DE de_IT de_LI de_LU doi_IN dsb_DE
dv_MV dz_BT el_CY el_GR en_AG en_AU en_BW en_CA en_DK en_GB en_HK en_IE en_IL en_IN en_NG en_NZ
en_PH en_SC en_SG en_US en_ZA en_ZM en_ZW es_AR es_BO es_CL es_CO es_CR es_CU es_DO es_EC es_ES
es_GT es_HN es_MX es_NI es_PA es_PE es_PR es_PY es_SV es_US es_UY es_VE et_EE eu_ES eu_FR fa_IR
ff_SN fi_FI fil_PH fo_FO fr_BE fr_CA fr_CH fr_FR fr_LU fur_IT fy_DE fy_NL ga_IE gd_GB gez_ER
gez_ET gl_ES gu_IN gv_GB ha_NG hak_TW he_IL hi_IN hif_FJ hne_IN hr_HR hsb_DE ht_HT hu_HU hy_AM
ia_FR id_ID ig_NG ik_CA is_IS it_CH it_IT iu_CA ja_JP ka_GE kab_DZ kk_KZ kl_GL km_KH kn_IN ko_KR
kok_IN ks_IN ku_TR kw_GB ky_KG lb_LU lg_UG li_BE li_NL lij_IT ln_CD lo_LA lt_LT lv_LV lzh_TW
mag_IN mai_IN mai_NP mfe_MU mg_MG mhr_RU mi_NZ miq_NI mjw_IN mk_MK ml_IN mn_MN mni_IN mnw_MM
mr_IN ms_MY mt_MT my_MM nan_TW nb_NO nds_DE nds_NL ne_NP nhn_MX niu_NU niu_NZ nl_AW nl_BE nl_NL
nn_NO nr_ZA nso_ZA oc_FR om_ET om_KE or_IN os_RU pa_IN pa_PK pap_AW pap_CW pl_PL ps_AF pt_BR
pt_PT quz_PE raj_IN rif_MA ro_RO ru_RU ru_UA rw_RW sa_IN sah_RU sat_IN sc_IT sd_IN se_NO sgs_LT
shn_MM shs_CA si_LK sid_ET sk_SK sl_SI sm_WS so_DJ so_ET so_KE so_SO sq_AL sq_MK sr_ME sr_RS
ss_ZA st_ZA sv_FI sv_SE sw_KE sw_TZ szl_PL ta_IN ta_LK tcy_IN te_IN tg_TJ th_TH the_NP ti_ER
ti_ET tig_ER tk_TM tl_PH tn_ZA to_TO tpi_PG tr_CY tr_TR ts_ZA tt_RU ug_CN uk_UA unm_US ur_IN
ur_PK uz_UZ ve_ZA vi_VN wa_BE wae_CH wal_ET wo_SN xh_ZA yi_US yo_NG yue_HK yuw_PG zh_CN zh_HK
zh_SG zh_TW zu_ZA
iw_IL in_ID no_NO`

// knownLocales is glibcLocales as a set of lower-cased "ll_cc".
var knownLocales = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, l := range strings.Fields(glibcLocales) {
		set[strings.ToLower(l)] = true
	}
	return set
})

// knownLanguages are the languages a .po file's name may give alone: those
// with a charset family (localeLanguages).
var knownLanguages = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for lang := range localeLanguages {
		set[lang] = true
	}
	return set
})

// localeFamily is the legacy charsets text in one group of languages was
// written in: try, the ones a locale may choose (the most common first,
// which a tie goes to), and also, the others a file's own bytes may
// choose and the locale leaves alone (KOI8-R for Russian, a DOS code page
// for German).
type localeFamily struct {
	try, also []string
}

// accepts reports whether the family holds the charset name.
func (f localeFamily) accepts(name string) bool {
	return slices.Contains(f.try, name) || slices.Contains(f.also, name)
}

var (
	westernFamily = localeFamily{
		try:  []string{"windows-1252", "iso-8859-15"},
		also: []string{"iso-8859-1", "macintosh", "ibm437", "ibm850", "ibm00858", "ibm860", "ibm863", "ibm865"},
	}
	centralFamily  = localeFamily{try: []string{"iso-8859-2", "windows-1250"}, also: []string{"ibm852", "iso-8859-16"}}
	cyrillicFamily = localeFamily{try: []string{"windows-1251"}, also: []string{"iso-8859-5", "ibm866", "ibm855", "x-mac-cyrillic"}}
	// Russian, Ukrainian and Belarusian were written in KOI8 on Unix as
	// often as in Windows-1251: a choice of the bytes', never the locale's.
	koi8Family     = localeFamily{try: cyrillicFamily.try, also: append([]string{"koi8-r", "koi8-u"}, cyrillicFamily.also...)}
	greekFamily    = localeFamily{try: []string{"iso-8859-7", "windows-1253"}}
	hebrewFamily   = localeFamily{try: []string{"windows-1255", "iso-8859-8"}, also: []string{"ibm862"}}
	arabicFamily   = localeFamily{try: []string{"windows-1256", "iso-8859-6"}}
	balticFamily   = localeFamily{try: []string{"windows-1257", "iso-8859-13"}, also: []string{"iso-8859-4"}}
	estonianFamily = localeFamily{try: balticFamily.try, also: append([]string{"windows-1252", "iso-8859-1", "iso-8859-15"}, balticFamily.also...)}
	// ISO-8859-9 first: the C library's Turkish and Kurdish locales, and
	// the same text as Windows-1254 unless the bytes use 0x80-0x9F.
	turkishFamily    = localeFamily{try: []string{"iso-8859-9", "windows-1254"}, also: []string{"iso-8859-3"}}
	thaiFamily       = localeFamily{try: []string{"windows-874"}}
	vietnameseFamily = localeFamily{try: []string{"windows-1258"}}
	japaneseFamily   = localeFamily{try: []string{"shift_jis", "euc-jp"}}
	koreanFamily     = localeFamily{try: []string{"euc-kr"}}
	simplifiedFamily = localeFamily{try: []string{"gbk"}}
	// Traditional Chinese: Taiwan's, Hong Kong's and Macau's Big5.
	traditionalFamily = localeFamily{try: []string{"big5"}}
)

// localeLanguages maps the languages whose legacy charsets are known to
// their family. Chinese depends on the region (localeFamilyOf).
var localeLanguages = map[string]localeFamily{
	"af": westernFamily, "an": westernFamily, "ast": westernFamily, "br": westernFamily, "ca": westernFamily,
	"da": westernFamily, "de": westernFamily, "en": westernFamily, "es": westernFamily, "eu": westernFamily,
	"fi": westernFamily, "fo": westernFamily, "fr": westernFamily, "fy": westernFamily, "ga": westernFamily,
	"gd": westernFamily, "gl": westernFamily, "id": westernFamily, "in": westernFamily, "is": westernFamily,
	"it": westernFamily, "lb": westernFamily, "ms": westernFamily, "nb": westernFamily, "nl": westernFamily,
	"nn": westernFamily, "no": westernFamily, "oc": westernFamily, "pt": westernFamily, "sq": westernFamily,
	"sv": westernFamily, "sw": westernFamily, "tl": westernFamily, "wa": westernFamily,

	"pl": centralFamily, "cs": centralFamily, "sk": centralFamily, "hu": centralFamily, "sl": centralFamily,
	"hr": centralFamily, "ro": centralFamily, "bs": centralFamily, "hsb": centralFamily, "dsb": centralFamily,

	"ru": koi8Family, "uk": koi8Family, "be": koi8Family,
	"bg": cyrillicFamily, "mk": cyrillicFamily, "sr": cyrillicFamily,

	"el": greekFamily,
	"he": hebrewFamily, "iw": hebrewFamily, "yi": hebrewFamily,
	"ar": arabicFamily, "fa": arabicFamily,
	"lt": balticFamily, "lv": balticFamily, "et": estonianFamily,
	"tr": turkishFamily,
	"th": thaiFamily,
	"vi": vietnameseFamily,
	"ja": japaneseFamily,
	"ko": koreanFamily,
}

// localeRegions maps a region to the family of a language localeLanguages
// lacks (Kurdish of Turkey, ku_TR): the national charset, which the
// region's other languages were written in where it has their letters.
// Only single-byte families of regions whose national script is not Latin
// or whose Latin charset is not Western: a minority language of a Western
// country is written in its own charset (Maori of New Zealand in
// ISO-8859-4 or -13, Welsh in ISO-8859-14), and one of China or Japan in
// its own script (Uyghur, Tibetan), not in the national double-byte one.
var localeRegions = map[string]localeFamily{
	"tr": turkishFamily,
	"pl": centralFamily, "cz": centralFamily, "sk": centralFamily, "hu": centralFamily, "si": centralFamily,
	"hr": centralFamily, "ro": centralFamily,
	"ru": cyrillicFamily, "ua": cyrillicFamily, "by": cyrillicFamily, "bg": cyrillicFamily, "mk": cyrillicFamily,
	"gr": greekFamily,
	"il": hebrewFamily,
	"sa": arabicFamily, "eg": arabicFamily, "iq": arabicFamily, "ir": arabicFamily, "jo": arabicFamily,
	"sy": arabicFamily, "lb": arabicFamily, "kw": arabicFamily, "ae": arabicFamily, "bh": arabicFamily,
	"om": arabicFamily, "qa": arabicFamily, "ye": arabicFamily, "sd": arabicFamily,
	"lt": balticFamily, "lv": balticFamily, "ee": balticFamily,
	"th": thaiFamily,
	"vn": vietnameseFamily,
}

// localeFamilyOf is the charset family of a locale: its language's, else
// its region's (byRegion: the language is none we know, so no language
// model of ours is its own).
func localeFamilyOf(loc locale) (f localeFamily, byRegion, ok bool) {
	if loc.lang == "zh" {
		switch loc.region {
		case "cn", "sg":
			return simplifiedFamily, false, true
		case "tw", "hk", "mo":
			return traditionalFamily, false, true
		}
		return localeFamily{}, false, false
	}
	if f, ok := localeLanguages[loc.lang]; ok {
		if loc.latin && f.try[0] == cyrillicFamily.try[0] {
			return centralFamily, false, true // Serbian in Latin letters
		}
		return f, false, true
	}
	f, ok = localeRegions[loc.region]
	return f, ok, ok
}

// weighLocale lets the locale in the file's name (localeInName) take the
// place of a decision, as a repository prior does (weighPrior), where
// there is none (prior is the repository's, "" for none) or it is of the
// locale's family, and is then the one charset the locale may choose. A
// weak choice,
// or a weak refusal, gives way to a charset of the locale's family whose
// reading fits as the prior's must; a single-byte choice made on strong
// evidence gives way to a single-byte charset of the family whose reading
// is in the same alphabet, has as many non-ASCII letters and scores
// within the margin of the choice (contested). Of the family's charsets
// that qualify, the most plausible reading wins, a tie going to the
// family's first.
//
// Never changed: a choice of the family already (KOI8-R for ru_RU.diff),
// a declaration the bytes agree with (in the head or the name), valid
// UTF-8, UTF-16/32, ISO-2022-JP, a strong multi-byte choice, and
// refusals other than a weak undecodable. The locale never refuses: a
// reading of its family that does not fit leaves the decision as it was.
//
// A locale whose language we know is judged by the language models
// (priorPlausibility), as the prior is. One known by its region alone
// (Kurdish, ku_TR) is a language the models do not know, whose reading
// they score near zero in every charset; its reading is judged letter by
// letter (plausibility), and must score at least as well as the
// choice's.
func weighLocale(d decision, head []byte, atEOF bool, name, prior string) (decision, bool) {
	switch {
	case d.declared != "" && !d.declaredIgnored, d.err == nil && (d.enc == nil || d.name == iso2022.name || profileOf(d.name) == profileWide):
		return d, false
	}
	loc, ok := localeInName(name)
	if !ok {
		return d, false
	}
	fam, byRegion, ok := localeFamilyOf(loc)
	if !ok || d.err == nil && fam.accepts(d.name) {
		return d, false
	}
	try := fam.try
	if prior != "" {
		if !fam.accepts(prior) {
			return d, false // the repository says otherwise
		}
		try = []string{prior}
	}
	weak, score, short := judgeChoice(d, head, atEOF)
	singleByte := d.err == nil && profileOf(d.name) == profileAny
	margin := contestMargin
	switch {
	case weak && short:
		margin = priorMarginShort
	case weak:
		margin = priorMargin
	case !singleByte:
		return d, false
	}
	var own string
	if d.err == nil {
		if own, ok = decodeSample(d.enc, head, atEOF); !ok {
			return d, false // cannot happen: the decision decoded it
		}
	}
	if byRegion {
		score = 0
		if d.err == nil {
			score = plausibility(own, profileOf(d.name))
		}
	}
	best, bestP := -1, 0.0
	for i, n := range try {
		c, ok := priorCharset(n)
		if !ok {
			continue
		}
		if d.err == nil && sameReading(d.charset, c, head, atEOF) {
			return d, false // the choice reads as the locale's charset does
		}
		cSingle := profileOf(c.name) == profileAny
		if !weak && !cSingle || cSingle && d.err != nil && nearlyDoubleByte(head, atEOF) {
			continue
		}
		text, ok := decodeSample(c.enc, head, atEOF)
		if !ok || checkText(text) != nil {
			continue
		}
		if singleByte && cSingle && (letterScript(text) != letterScript(own) || nonASCIILetters(text) < nonASCIILetters(own)) {
			continue
		}
		var p float64
		if byRegion && cSingle {
			if cjkText(head, atEOF) {
				continue
			}
			p, ok = plausibility(text, profileAny), true
			if p < score {
				continue // letter by letter, it must read at least as well
			}
		} else {
			p, ok = priorPlausibility(c, head, atEOF)
		}
		if !ok || p < minScore || p < score-margin {
			continue
		}
		if best < 0 || p > bestP {
			best, bestP = i, p
		}
	}
	if best < 0 {
		return d, false
	}
	c, _ := priorCharset(try[best])
	return decision{charset: c, declared: d.declared, declaredIgnored: d.declaredIgnored}, true
}

// letterScript is the Unicode script most of text's non-ASCII letters
// are in ("" for none), so that a locale's reading of the bytes replaces
// a choice only with text in the same alphabet.
func letterScript(text string) string {
	var counts [len(letterScripts)]int
	for _, r := range text {
		if r < utf8.RuneSelf || !unicode.IsLetter(r) {
			continue
		}
		for i, s := range letterScripts {
			if unicode.Is(unicode.Scripts[s], r) {
				counts[i]++
				break
			}
		}
	}
	best := -1
	for i, n := range counts { // ties go to the first
		if n > 0 && (best < 0 || n > counts[best]) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return letterScripts[best]
}

// letterScripts are the scripts the single-byte charsets write.
var letterScripts = [...]string{"Latin", "Cyrillic", "Greek", "Hebrew", "Arabic", "Thai"}
